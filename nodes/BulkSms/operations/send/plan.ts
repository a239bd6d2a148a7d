/**
 * Reads what every input item asks for, once, and turns it into sends: one message to the
 * numbers of one or more items, split into requests of at most Max Destinations per Request.
 * Nothing here talks to the service, so every item is checked before anything is sent.
 */
import type { IExecuteFunctions, NodeApiError } from 'n8n-workflow';
import { isExpression, NodeOperationError } from 'n8n-workflow';

import type { WireFormat } from '../../../shared/domain/body';
import {
	creditsFor,
	measureMessage,
	smartEncode,
	type MessageMeasure,
	type SmartEncoding,
} from '../../../shared/domain/message';
import { parseDestinations } from '../../../shared/domain/msisdn';
import { count, listFew } from '../../../shared/domain/words';
import {
	resolveValidity,
	ValidityError,
	type Validity,
	type ValidityChoice,
} from '../../../shared/domain/validity';
import { asNodeError } from '../../../shared/items';
import { serviceSettings, type AccountOf } from '../../../shared/transport';

export const OPTED_OUT = 'opted out';
export const DUPLICATE = 'duplicate';
/** The reason of an item whose Destinations gave nothing at all (an empty cell of a sheet). */
export const NO_NUMBER = 'no number given';
/** How many bad rows or numbers an error names one by one; the rest are counted. */
const NAMED = 5;
/** As in the option's description; an expression cannot open more connections than this. */
const MAX_CONCURRENCY = 32;

export interface Skipped {
	input: string;
	reason: string;
	item: number;
	/** For a number given by several items of one send: the item it was sent with. */
	sent_with_item?: number;
}

/** What one item gave: the numbers to send, and the entries left out with why. */
export interface Numbers {
	item: number;
	destinations: string[];
	skipped: Skipped[];
}

/** An item or a group that cannot be sent (under Continue On Fail), with its numbers when read. */
export interface ItemFailure {
	items: number[];
	error: NodeApiError | NodeOperationError;
	numbers?: Numbers[];
}

/** Settings of the whole run, read from the first item. */
export interface RunSettings {
	combine: boolean;
	group: boolean;
	concurrency: number;
	output: 'batch' | 'destination';
	/** As given; checked when the credits are counted. */
	maxCredits?: unknown;
}

/** One message to the numbers of one or more items; several requests when it is long. */
export interface Send {
	items: number[];
	/** The text as sent (after Smart Encoding). */
	message: string;
	measure: MessageMeasure;
	smart?: SmartEncoding & { before: MessageMeasure };
	validity: Validity | undefined;
	format: WireFormat;
	destinations: string[];
	/** The item each destination came from, for pairedItem; empty for a send of one item. */
	sources: Map<string, number>;
	skipped: Skipped[];
	duplicates: number;
	chunks: string[][];
}

export interface Plan {
	settings: RunSettings;
	sends: Send[];
	/** Items (or a combined group) that cannot be sent, under Continue On Fail. */
	failures: ItemFailure[];
}

/** What one item asks for, read once. */
interface ItemSend extends Numbers {
	written: string;
	smartEncoding: boolean;
	validity: Validity | undefined;
	format: WireFormat;
	maxPerRequest: number;
	onInvalid: string;
	duplicates: number;
}

type Reader = <T>(name: string, item: number, fallback: T) => T;

/**
 * Every item is read and checked before anything is sent. Without Continue On Fail, items that
 * cannot be sent stop the run together (one error naming each), and so does a run left with
 * nothing to send because of bad numbers; under it they become failed items and the rest goes.
 */
export async function planSend(this: IExecuteFunctions, accountOf: AccountOf): Promise<Plan> {
	const itemCount = this.getInputData().length;
	const read = parameterReader(this);
	const settings = readSettings(read);
	const failures: ItemFailure[] = [];
	const fail = (items: number[], error: unknown, numbers?: Numbers[]) => {
		failures.push({ items, error: asNodeError(this, error, items[0]), numbers });
	};
	const planned = (sends: Send[]): Plan => {
		if (failures.length > 0 && !this.continueOnFail()) throw oneError.call(this, failures);
		return { settings, sends, failures };
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
	const plan = planned(sends);
	if (!this.continueOnFail()) checkSomethingToSend.call(this, sends, itemCount);
	checkCredits.call(this, sends, settings.maxCredits);
	return plan;
}

/**
 * A parameter that is not an expression is the same for every item: it is read once. n8n
 * resolves an expression per item, which is what costs with thousands of items (and an
 * opt-out list read from another node would be resolved once per item).
 */
function parameterReader(context: IExecuteFunctions): Reader {
	const fixed = new Map<string, unknown>();
	const parameters = context.getNode().parameters;
	return <T>(name: string, item: number, fallback: T): T => {
		if (fixed.has(name)) return fixed.get(name) as T;
		const raw = name.split('.').reduce<unknown>((value, key) => {
			return value && typeof value === 'object'
				? (value as Record<string, unknown>)[key]
				: undefined;
		}, parameters);
		const value = context.getNodeParameter(name, item, fallback) as T;
		if (!isExpression(raw)) fixed.set(name, value);
		return value;
	};
}

function readSettings(read: Reader): RunSettings {
	const option = <T>(name: string, fallback: T) => read(`sendOptions.${name}`, 0, fallback);
	// null, not undefined: n8n refuses a missing parameter whose fallback is undefined.
	const maxCredits = option<unknown>('maxCredits', null);
	return {
		combine: option('combineItems', false),
		group: option('groupSameMessage', false),
		concurrency: Math.min(
			MAX_CONCURRENCY,
			Math.max(1, Math.floor(numberOr(option('concurrency', 8), 8))),
		),
		output: option<string>('output', 'batch') === 'destination' ? 'destination' : 'batch',
		maxCredits: maxCredits === null || maxCredits === '' ? undefined : maxCredits,
	};
}

/** Everything read once per run (the service's time zone, the opt-out list), then a reader per item. */
async function itemReader(
	this: IExecuteFunctions,
	read: Reader,
	accountOf: AccountOf,
): Promise<(item: number) => ItemSend> {
	const { timeZone } = await serviceSettings.call(this, 0, await accountOf(0));
	const optedOut = optOuts(read);
	const now = new Date();
	const validities = new Map<string, Validity | undefined>();
	return (item) => {
		const option = <T>(name: string, fallback: T) => read(`sendOptions.${name}`, item, fallback);
		const written = messageOf.call(this, read('message', item, ''), item);
		const choice = validityChoice.call(this, read, item);
		const key = memoKey(choice);
		const validity =
			key !== undefined && validities.has(key)
				? validities.get(key)
				: validityOf.call(this, choice, now, timeZone, item);
		if (key !== undefined) validities.set(key, validity);
		const itemSend: ItemSend = {
			item,
			written,
			smartEncoding: option('smartEncoding', false),
			validity,
			format: option<WireFormat>('format', 'json'),
			maxPerRequest: Math.max(1, Math.floor(numberOr(option('maxPerRequest', 1000), 1000))),
			onInvalid: option('onInvalid', 'skip'),
			destinations: [],
			skipped: [],
			duplicates: 0,
		};
		addDestinations(
			itemSend,
			read('destinations', item, ''),
			option<unknown>('defaultCountryCode', ''),
		);
		leaveOut(itemSend, optedOut);
		// A row with nothing in Destinations (an empty cell) is a bad row like one with a bad number.
		if (itemSend.destinations.length === 0 && itemSend.skipped.length === 0)
			itemSend.skipped.push({ input: '', reason: NO_NUMBER, item });
		return itemSend;
	};
}

function optOuts(read: Reader): Set<string> {
	const raw = read<unknown>('sendOptions.doNotSendTo', 0, '');
	const defaultCountryCode = read<unknown>('sendOptions.defaultCountryCode', 0, '');
	if (raw === undefined || raw === null || raw === '') return new Set();
	// Entries that are not numbers cannot match a destination (a header cell, a blank): ignored.
	return new Set(parseDestinations(raw, { defaultCountryCode }).destinations);
}

function addDestinations(itemSend: ItemSend, raw: unknown, defaultCountryCode: unknown): void {
	// parseDestinations reads any value, the country code too, and says in words what is wrong.
	const parsed = parseDestinations(raw, { defaultCountryCode });
	itemSend.destinations = parsed.destinations;
	itemSend.duplicates = parsed.duplicates;
	itemSend.skipped = parsed.rejected.map((rejected) => ({ ...rejected, item: itemSend.item }));
}

function leaveOut(itemSend: ItemSend, optedOut: ReadonlySet<string>): void {
	if (optedOut.size === 0) return;
	const kept: string[] = [];
	for (const destination of itemSend.destinations) {
		if (!optedOut.has(destination)) kept.push(destination);
		else itemSend.skipped.push({ input: destination, reason: OPTED_OUT, item: itemSend.item });
	}
	itemSend.destinations = kept;
}

function validityChoice(this: IExecuteFunctions, read: Reader, item: number): ValidityChoice {
	const kind = read<ValidityChoice['kind']>('validity', item, 'serviceDefault');
	// Raw values: resolveValidity checks them and says what is wrong (Number() or String()
	// would throw on some values an expression can give).
	if (kind === 'duration') return { kind, hours: read<unknown>('validityHours', item, 24) };
	if (kind === 'until') {
		const value = read<unknown>('validityUntil', item, '');
		return { kind, value, inputTimeZone: this.getTimezone() };
	}
	return { kind: 'serviceDefault' };
}

/** Items with the same plain choice share one resolved validity (and one "now"). */
function memoKey(choice: ValidityChoice): string | undefined {
	if (choice.kind === 'serviceDefault') return choice.kind;
	const given = choice.kind === 'duration' ? choice.hours : choice.value;
	if (typeof given !== 'number' && typeof given !== 'string') return undefined;
	return `${choice.kind} ${typeof given} ${given}`;
}

/** A number, or a string of one, from a parameter an expression may have set; else the fallback. */
function numberOr(value: unknown, fallback: number): number {
	const number =
		typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
	return Number.isFinite(number) ? number : fallback;
}

/** The message as text; a list or an object from an expression is refused in words. */
function messageOf(this: IExecuteFunctions, value: unknown, itemIndex: number): string {
	const text =
		typeof value === 'string'
			? value
			: typeof value === 'number' || typeof value === 'bigint'
				? `${value}`
				: undefined;
	if (text === undefined) {
		const got =
			value === null || value === undefined
				? 'nothing'
				: Array.isArray(value)
					? 'a list'
					: typeof value === 'object'
						? 'an object'
						: `a ${typeof value}`;
		throw new NodeOperationError(this.getNode(), `The message is not text (got ${got})`, {
			description: 'Message must give the text to send; check its expression.',
			itemIndex,
		});
	}
	if (text.trim() === '') {
		throw new NodeOperationError(this.getNode(), 'The message is empty', {
			description: 'Write the text to send in Message.',
			itemIndex,
		});
	}
	return text;
}

function validityOf(
	this: IExecuteFunctions,
	choice: ValidityChoice,
	now: Date,
	serviceTimeZone: string,
	item: number,
): Validity | undefined {
	try {
		return resolveValidity(choice, now, serviceTimeZone);
	} catch (error) {
		// resolveValidity throws only ValidityError, whose message is meant for the user.
		throw new NodeOperationError(this.getNode(), (error as ValidityError).message, {
			itemIndex: item,
		});
	}
}

/** An entry left out on purpose (opted out, or sent with an earlier item): not a bad number. */
export function isLeftOut(skipped: Skipped): boolean {
	return skipped.reason === OPTED_OUT || skipped.reason === DUPLICATE;
}

/** One entry as a person reads it: `"12345": too short: …`. */
function entryText(skipped: Skipped): string {
	return skipped.reason === NO_NUMBER ? NO_NUMBER : `"${skipped.input}": ${skipped.reason}`;
}

/** Entries as a person reads them, the first few named and the rest counted. */
export function entriesText(entries: readonly Skipped[], named = NAMED): string {
	return listFew(entries.map(entryText), named, '; ');
}

function invalidOf(entries: readonly Skipped[]): Skipped[] {
	return entries.filter((skipped) => !isLeftOut(skipped));
}

/** "Item 1: why; item 3: why and 4 more": bad rows, each with its first reason. */
function rowsText(rows: ReadonlyArray<[item: number, why: string]>): string {
	const text = listFew(
		rows.map(([item, why]) => `item ${item}: ${why}`),
		NAMED,
		'; ',
	);
	return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Invalid Numbers: Fail the Item: the error of an item (or combined send) with a bad number. */
function refusedNumbers(
	this: IExecuteFunctions,
	numbers: Pick<Numbers, 'skipped'> & { onInvalid: string; item: number },
): NodeOperationError | undefined {
	const invalid = invalidOf(numbers.skipped);
	if (numbers.onInvalid !== 'fail' || invalid.length === 0) return undefined;
	const itemIndex = numbers.item;
	if (invalid.every((skipped) => skipped.reason === NO_NUMBER)) {
		return new NodeOperationError(this.getNode(), 'No destination given; nothing was sent', {
			description:
				'Destinations is empty: give numbers in international format, e.g. 447700900123, or set Invalid Numbers to Skip and Report to skip such rows.',
			itemIndex,
		});
	}
	return new NodeOperationError(
		this.getNode(),
		`${invalid.length} destination(s) are not valid mobile numbers; nothing was sent`,
		{
			description: `${entriesText(invalid)}. Correct them, or set Invalid Numbers to Skip and Report.`,
			itemIndex,
		},
	);
}

/** Several items that cannot be sent stop the run with one error that names each. */
function oneError(
	this: IExecuteFunctions,
	failures: readonly ItemFailure[],
): NodeApiError | NodeOperationError {
	if (failures.length === 1) return failures[0].error;
	const rows = failures.map((failure): [number, string] => {
		const invalid = invalidOf((failure.numbers ?? []).flatMap((numbers) => numbers.skipped));
		return [failure.items[0], invalid.length > 0 ? entriesText(invalid, 1) : failure.error.message];
	});
	const badNumbers = failures.every((failure) => failure.numbers !== undefined);
	const hint = badNumbers ? ' Correct them, or set Invalid Numbers to Skip and Report.' : '';
	return new NodeOperationError(
		this.getNode(),
		`${count(failures.length)} items cannot be sent; nothing was sent`,
		{ description: `${rowsText(rows)}.${hint}`, itemIndex: failures[0].items[0] },
	);
}

/**
 * Skip and Report skips bad rows; a run left with nothing to send because of them fails once,
 * naming them (opted-out numbers alone are a choice, not an error).
 */
function checkSomethingToSend(
	this: IExecuteFunctions,
	sends: readonly Send[],
	items: number,
): void {
	if (sends.some((send) => send.chunks.length > 0)) return;
	const bad = new Map<number, Skipped[]>();
	for (const skipped of invalidOf(sends.flatMap((send) => send.skipped))) {
		const entries = bad.get(skipped.item);
		if (entries) entries.push(skipped);
		else bad.set(skipped.item, [skipped]);
	}
	if (bad.size === 0) return;
	const which =
		items === 1
			? 'the item has no number that can be sent'
			: bad.size === items
				? `none of the ${count(items)} items has a number that can be sent`
				: `no item has a number that can be sent, and ${count(bad.size)} of the ${count(items)} have none that is valid`;
	const rows = [...bad].map(([item, entries]): [number, string] => [item, entriesText(entries, 1)]);
	throw new NodeOperationError(this.getNode(), 'No valid destination to send to', {
		description: `Nothing was sent: ${which}. ${rowsText(rows)}. Give numbers in international format (e.g. 447700900123), or set Default Country Code for numbers written nationally.`,
		itemIndex: rows[0][0],
	});
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
		message,
		measure: measureMessage(message),
		smart: smart && { ...smart, before: measureMessage(first.written) },
		validity: first.validity,
		format: first.format,
		destinations: [],
		sources: new Map(),
		skipped: [],
		duplicates: 0,
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
	send.chunks = chunk(send.destinations, first.maxPerRequest);
	return send;
}

/** A number given by two items of one send goes out once, with the first. */
function merge(send: Send, itemSend: ItemSend): void {
	send.duplicates += itemSend.duplicates;
	send.skipped.push(...itemSend.skipped);
	for (const destination of itemSend.destinations) {
		const earlier = send.sources.get(destination);
		if (earlier !== undefined) {
			send.duplicates++;
			send.skipped.push({
				input: destination,
				reason: DUPLICATE,
				item: itemSend.item,
				sent_with_item: earlier,
			});
			continue;
		}
		send.sources.set(destination, itemSend.item);
		send.destinations.push(destination);
	}
}

/** The input item a destination of this send came from. */
export function itemOf(send: Send, destination: string): number {
	return send.sources.get(destination) ?? send.items[0];
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

function chunk<T>(list: readonly T[], size: number): T[][] {
	const chunks: T[][] = [];
	for (let start = 0; start < list.length; start += size)
		chunks.push(list.slice(start, start + size));
	return chunks;
}
