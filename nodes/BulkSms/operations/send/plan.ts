/**
 * Reads what every input item asks for, once, and turns it into sends: one message to the
 * numbers of one or more items, split into requests of at most Max Destinations per Request.
 * Nothing here talks to the service, so every item is checked before anything is sent.
 * Reading the items: itemReader.ts; bad rows: refusals.ts; the data: model.ts.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { creditsFor, measureMessage, smartEncode } from '../../../shared/domain/message';
import { asNodeError } from '../../../shared/items';
import type { AccountOf } from '../../../shared/transport';
import { itemReader, numberOr, parameterReader, readSettings } from './itemReader';
import {
	DUPLICATE,
	itemOf,
	type ItemFailure,
	type ItemSend,
	type Numbers,
	type Plan,
	type RunSettings,
	type Send,
	type Skipped,
} from './model';
import { checkSomethingToSend, invalidOf, oneError, refusedNumbers } from './refusals';

/**
 * Every item is read and checked before anything is sent. Without Continue On Fail, items that
 * cannot be sent stop the run together (one error naming each), and so does a run left with
 * nothing to send because of bad numbers; under it they become failed items and the rest goes.
 */
export async function planSend(this: IExecuteFunctions, accountOf: AccountOf): Promise<Plan> {
	const itemCount = this.getInputData().length;
	const read = parameterReader(this);
	const settings = readSettings.call(this, read);
	const failures: ItemFailure[] = [];
	const fail = (items: number[], error: unknown, numbers?: Numbers[]) => {
		failures.push({ items, error: asNodeError(this, error, items[0]), numbers });
	};
	const planned = (sends: Send[], mistakes: Skipped[] = []): Plan => {
		if (failures.length > 0 && !this.continueOnFail()) throw oneError.call(this, failures);
		return { settings, sends, failures, mistakes };
	};
	const all = Array.from({ length: itemCount }, (_, item) => item);
	let reader: (item: number) => ItemSend;
	try {
		reader = await itemReader.call(this, read, accountOf);
	} catch (error) {
		fail(all, error);
		return planned([]);
	}
	const perItem: ItemSend[] = [];
	for (const item of all) {
		let itemSend: ItemSend;
		try {
			itemSend = reader(item);
		} catch (error) {
			fail(settings.combine ? all : [item], error);
			if (settings.combine) return planned([]);
			continue;
		}
		const refused = settings.combine ? undefined : refusedNumbers.call(this, itemSend);
		if (refused) fail([item], refused, [itemSend]);
		else perItem.push(itemSend);
	}
	const sends: Send[] = [];
	for (const group of groupsOf(perItem, settings)) {
		try {
			sends.push(sendOf.call(this, group, settings.combine));
		} catch (error) {
			const items = group.map((itemSend) => itemSend.item);
			fail(items, error, group);
		}
	}
	if (settings.once) dropRepeats(sends);
	const perRequest = settings.speedLimit?.messages;
	for (const send of sends) send.chunks = chunk(send.destinations, send.maxPerRequest, perRequest);
	const plan = planned(sends, typedMistakes(perItem));
	if (!this.continueOnFail()) checkSomethingToSend.call(this, sends, itemCount);
	checkCredits.call(this, sends, settings.maxCredits);
	return plan;
}

/** Invalid numbers typed in Destinations, once (a typed list is the same for every item). */
function typedMistakes(perItem: readonly ItemSend[]): Skipped[] {
	const typed = perItem.find((itemSend) => itemSend.typed && itemSend.onInvalid === 'auto');
	return typed ? invalidOf(typed.skipped) : [];
}

/** Items that go out together: all of them, those with the same message and options, or each alone. */
function groupsOf(perItem: ItemSend[], settings: RunSettings): ItemSend[][] {
	if (settings.combine) return perItem.length > 0 ? [perItem] : [];
	if (!settings.group) return perItem.map((itemSend) => [itemSend]);
	const groups = new Map<string, ItemSend[]>();
	for (const itemSend of perItem) {
		// An item with nothing to send comes out as its own skipped item, paired with its row.
		if (itemSend.destinations.length === 0) {
			groups.set(`item ${itemSend.item}`, [itemSend]);
			continue;
		}
		const key = JSON.stringify([
			itemSend.campaign,
			itemSend.written,
			itemSend.smartEncoding,
			itemSend.validity?.validity_period,
			itemSend.format,
			itemSend.maxPerRequest,
		]);
		const group = groups.get(key);
		if (group) group.push(itemSend);
		else groups.set(key, [itemSend]);
	}
	return [...groups.values()];
}

function sendOf(this: IExecuteFunctions, group: ItemSend[], combined: boolean): Send {
	const [first] = group;
	if (combined) checkSameMessage.call(this, group);
	const smart = first.smartEncoding ? smartEncode(first.written) : undefined;
	const message = smart?.text ?? first.written;
	const send: Send = {
		items: group.map((itemSend) => itemSend.item),
		campaign: first.campaign,
		message,
		measure: measureMessage(message),
		smart: smart && { ...smart, before: measureMessage(first.written) },
		validity: first.validity,
		format: first.format,
		destinations: [],
		sources: new Map(),
		skipped: [],
		duplicates: 0,
		maxPerRequest: first.maxPerRequest,
		chunks: [],
	};
	if (group.length === 1) {
		// One item: its numbers are deduplicated already and all come from it (no map to build
		// for 100,000 numbers).
		send.destinations = first.destinations;
		send.skipped = first.skipped;
		send.duplicates = first.duplicates;
	} else for (const itemSend of group) merge(send, itemSend);
	const refused =
		combined &&
		refusedNumbers.call(this, { ...send, onInvalid: first.onInvalid, item: first.item });
	if (refused) throw refused;
	return send;
}

/** A number given by two items of one send goes out once, with the first. */
function merge(send: Send, itemSend: ItemSend): void {
	send.duplicates += itemSend.duplicates;
	send.skipped.push(...itemSend.skipped);
	for (const destination of itemSend.destinations) {
		const earlier = send.sources.get(destination);
		if (earlier !== undefined) {
			repeated(send, destination, itemSend.item, earlier);
			continue;
		}
		send.sources.set(destination, itemSend.item);
		send.destinations.push(destination);
	}
}

/**
 * Send Each Number Once across the sends of a run: a row that gives a number the same text
 * (and campaign) as an earlier row is not sent it again; it says which row it repeats.
 */
function dropRepeats(sends: Send[]): void {
	const firstItem = new Map<string, number>();
	for (const send of sends) {
		// The text once per send: a number (digits only) and its send's text, apart by a newline.
		const sameText = `\n${JSON.stringify([send.campaign, send.message])}`;
		const kept: string[] = [];
		for (const destination of send.destinations) {
			const key = destination + sameText;
			const earlier = firstItem.get(key);
			const item = itemOf(send, destination);
			if (earlier === undefined) {
				firstItem.set(key, item);
				kept.push(destination);
			} else repeated(send, destination, item, earlier);
		}
		send.destinations = kept;
	}
}

function repeated(send: Send, destination: string, item: number, earlier: number): void {
	send.duplicates++;
	send.skipped.push({ input: destination, reason: DUPLICATE, item, sent_with_item: earlier });
}

function checkSameMessage(this: IExecuteFunctions, group: ItemSend[]): void {
	const [first] = group;
	const differing = group.find((itemSend) => itemSend.written !== first.written);
	if (differing === undefined) return;
	throw new NodeOperationError(
		this.getNode(),
		`Item ${differing.item} has a different message than item ${first.item}`,
		{
			description:
				'A combined batch sends one message. Use the same Message for all items, or turn off Combine All Items Into One Batch.',
			itemIndex: differing.item,
		},
	);
}

/** A runaway loop must not empty an account: the whole run is refused before any request. */
function checkCredits(this: IExecuteFunctions, sends: Send[], limit: unknown) {
	if (limit === undefined) return;
	const maxCredits = numberOr(limit, NaN);
	if (Number.isNaN(maxCredits)) {
		throw new NodeOperationError(this.getNode(), 'Max Credits is not a number; nothing was sent', {
			description: 'Give the most credits this send may use, e.g. 1000.',
		});
	}
	const expected = sends.reduce(
		(sum, send) => sum + creditsFor(send.measure, send.destinations.length),
		0,
	);
	if (expected <= maxCredits) return;
	throw new NodeOperationError(
		this.getNode(),
		`This send would use ${expected} credits, more than Max Credits (${maxCredits}); nothing was sent`,
		{
			description:
				'Credits are parts × numbers over all items. Check the input (a loop may have multiplied it), shorten the message, or raise Max Credits.',
		},
	);
}

/** Requests of at most Max Destinations per Request, and never more than a speed limit's period allows. */
function chunk<T>(list: readonly T[], size: number, perPeriod = Infinity): T[][] {
	const most = Math.max(1, Math.min(size, Math.floor(perPeriod)));
	const chunks: T[][] = [];
	for (let start = 0; start < list.length; start += most)
		chunks.push(list.slice(start, start + most));
	return chunks;
}
