/**
 * The output items of a send: one per batch (request), or one per destination given. Every item
 * of one kind has the same columns, in the same order, null where they do not apply, so that
 * n8n's Table view and a sheet write-back read every row alike. A row that was not sent (skipped,
 * sent before, or failed under Continue On Fail) is paired with its input like the others and read
 * the same way: `send_outcome`, `batch_id` (null), `reason`.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { creditsFor } from '../../../shared/domain/message';
import { pairedWith } from '../../../shared/items';
import { explainRequest } from './accounting';
import { heldReason } from './leftOut';
import {
	itemOf,
	type AttemptedRequest,
	type HeldNumber,
	type ItemFailure,
	type RequestResult,
	type Send,
	type SendResults,
	type Skipped,
} from './model';
import { entriesText, isLeftOut } from './refusals';

/** The message as sent to this many numbers: encoding, parts, credits and validity. */
function measureFields(send: Send, destinations: number): IDataObject {
	return {
		encoding: send.measure.encoding,
		characters: send.measure.characters,
		parts: send.measure.parts,
		credits_expected: creditsFor(send.measure, destinations),
		validity_period: send.validity?.validity_period ?? null,
		valid_until: send.validity?.valid_until ?? null,
	};
}

function messageFields(send: Send, destinations: number): IDataObject {
	const fields = measureFields(send, destinations);
	if (send.smart) {
		const saved = send.smart.before.parts - send.measure.parts;
		fields.smart_encoding = {
			replaced: send.smart.replaced,
			parts_before: send.smart.before.parts,
			parts_saved: saved,
			credits_saved: saved * destinations,
		};
	}
	return fields;
}

/** A held-back number as the output lists it, with its state, batch and reason. */
interface HeldEntry extends Skipped {
	state?: HeldNumber['state'];
	batch_id?: string | null;
}

function heldEntries({ send, campaign }: SendResults, held: readonly HeldNumber[]): HeldEntry[] {
	return held.map((number) => ({
		input: number.msisdn,
		reason: heldReason(number, campaign),
		item: itemOf(send, number.msisdn),
		state: number.state,
		batch_id: number.batchId ?? null,
	}));
}

/** A request's outcome when every number of it was held back: in doubt wants action first. */
function heldOutcome(held: readonly HeldNumber[]): HeldNumber['state'] {
	for (const state of ['in doubt', 'not sent'] as const) {
		if (held.some((number) => number.state === state)) return state;
	}
	return 'sent before';
}

// ---------------------------------------------------------------------------------------
// One item per batch
// ---------------------------------------------------------------------------------------

/** What both outputs say of the message itself, in order. */
const MESSAGE: IDataObject = {
	encoding: null,
	characters: null,
	parts: null,
	credits_expected: null,
	validity_period: null,
	valid_until: null,
};

/** The columns of every item of One Item per Batch, in order. */
const BATCH: IDataObject = {
	send_outcome: null,
	batch_id: null,
	accepted: null,
	batch_size: null,
	receive_updates: null,
	remaining_credits: null,
	requested: 0,
	destinations: [],
	dropped_by_service: 0,
	skipped: [],
	duplicates_removed: 0,
	reason: null,
	...MESSAGE,
	chunk: null,
	chunks: null,
	error: null,
	description: null,
	service_error: null,
	not_sent: [],
};

function batchItem(fields: IDataObject, items: readonly number[]): INodeExecutionData {
	return { json: { ...BATCH, ...fields }, pairedItem: pairedWith(items) };
}

export function batchItems(results_: SendResults): INodeExecutionData[] {
	const { send, results } = results_;
	if (send.chunks.length === 0) return [nothingToSend(send)];
	const output: INodeExecutionData[] = [];
	let notSent = notAttempted(send, results); // listed once, on the first failed request
	for (const [index, result] of results.entries()) {
		if (result.outcome === 'not attempted') continue; // listed in the failed item's not_sent
		const items = pairedItems(send, index);
		if (result.outcome === 'held back') {
			output.push(batchItem(heldBackJson(results_, index, result.held), items));
			continue;
		}
		const json = batchJson(results_, index, result);
		if (result.outcome !== 'accepted') {
			Object.assign(json, failedFields(send, result, json, notSent));
			notSent = [];
		}
		output.push(batchItem(json, items));
	}
	return output;
}

/** Every number of the items was left out: not valid, opted out, or given by an earlier item. */
function nothingToSend(send: Send): INodeExecutionData {
	return batchItem(
		{
			send_outcome: 'skipped',
			skipped: send.skipped,
			reason: entriesText(send.skipped),
			duplicates_removed: send.duplicates,
			...messageFields(send, 0),
		},
		send.items,
	);
}

/** Every number of a request was held back by the record: nothing goes out again. */
function heldBackJson(sent: SendResults, index: number, held: readonly HeldNumber[]): IDataObject {
	const { send } = sent;
	const first = index === 0;
	const entries = heldEntries(sent, held);
	const outcome = heldOutcome(held);
	const batches = [...new Set(entries.map((entry) => entry.batch_id).filter(Boolean))];
	return {
		send_outcome: outcome,
		batch_id: batches.length === 1 ? batches[0] : null,
		skipped: [...(first ? send.skipped : []), ...entries],
		duplicates_removed: first ? send.duplicates : 0,
		reason: entries.find((entry) => entry.state === outcome)?.reason ?? null,
		...messageFields(send, 0),
		chunk: index + 1,
		chunks: send.chunks.length,
	};
}

/**
 * An item (or a combined group) that cannot be sent, under Continue On Fail: `failed`, with its
 * bad numbers and why, paired with its row like a sent one.
 */
export function failedItem(failure: ItemFailure): INodeExecutionData {
	const { error } = failure;
	const skipped = (failure.numbers ?? []).flatMap((numbers) => numbers.skipped);
	const invalid = skipped.filter((entry) => !isLeftOut(entry));
	return batchItem(
		{
			send_outcome: 'failed',
			skipped,
			reason: invalid.length > 0 ? entriesText(invalid) : error.message,
			error: error.message,
			description: error.description ?? null,
		},
		failure.items,
	);
}

/** The chunk's items; the first chunk also answers for items none of whose numbers went out. */
function pairedItems(send: Send, index: number): number[] {
	const items = send.chunks[index].map((destination) => itemOf(send, destination));
	if (index > 0) return items;
	const sending = new Set(send.sources.size > 0 ? send.sources.values() : [send.items[0]]);
	return [...items, ...send.items.filter((item) => !sending.has(item))];
}

function batchJson(sent: SendResults, index: number, result: AttemptedRequest): IDataObject {
	const { send } = sent;
	const destinations = result.sent;
	const response = result.response ?? {};
	const first = index === 0;
	// What was skipped belongs to the whole send, so it is reported once.
	const held = heldEntries(sent, result.held);
	return {
		...response,
		send_outcome: result.outcome,
		requested: destinations.length,
		destinations,
		dropped_by_service:
			result.outcome === 'accepted' ? destinations.length - result.response.batch_size : 0,
		skipped: [...(first ? send.skipped : []), ...held],
		duplicates_removed: first ? send.duplicates : 0,
		...messageFields(send, destinations.length),
		chunk: index + 1,
		chunks: send.chunks.length,
	};
}

/**
 * Continue On Fail: n8n's error items carry the message in `error`, so the service's own
 * `error` text moves to `service_error`; `not_sent` lists the send's numbers never tried.
 */
function failedFields(
	send: Send,
	result: Exclude<AttemptedRequest, { outcome: 'accepted' }>,
	json: IDataObject,
	notSent: string[],
): IDataObject {
	const later = notSent.length > 0 ? `${notSent.length} later destination(s) were not sent.` : '';
	return {
		service_error: json.error ?? null,
		not_sent: notSent,
		error: result.failure.message,
		description: [result.failure.description, explainRequest(result), later]
			.filter(Boolean)
			.join(' '),
	};
}

/** The send's destinations whose request never started because one of its requests failed. */
function notAttempted(send: Send, results: readonly RequestResult[]): string[] {
	return results.flatMap((result, index) =>
		result.outcome === 'not attempted' ? send.chunks[index] : [],
	);
}

// ---------------------------------------------------------------------------------------
// One item per destination
// ---------------------------------------------------------------------------------------

/** The columns of every row of One Item per Destination, in order. */
const ROW: IDataObject = {
	msisdn: null,
	input: null,
	send_outcome: null,
	batch_id: null,
	reason: null,
	sent_with_item: null,
	error: null,
	service_error: null,
	...MESSAGE,
};

type Row = INodeExecutionData & { item: number };

function row(item: number, fields: IDataObject): Row {
	return { item, json: { ...ROW, ...fields }, pairedItem: { item } };
}

/** A row for every number given, sent or not, paired with the item it came from. */
export function destinationRows(sent: SendResults): Row[] {
	const { send, results } = sent;
	const rows: Row[] = [];
	const perNumber = measureFields(send, 1);
	const leftOut = measureFields(send, 0);
	for (const [index, result] of results.entries()) {
		const held = new Set<string>();
		if (result.outcome !== 'not attempted') {
			for (const entry of heldEntries(sent, result.held)) {
				held.add(entry.input);
				rows.push(row(entry.item, { msisdn: entry.input, ...heldFields(entry), ...leftOut }));
			}
		}
		const fields = { ...rowFields(result), ...perNumber };
		for (const msisdn of send.chunks[index]) {
			if (!held.has(msisdn)) rows.push(row(itemOf(send, msisdn), { msisdn, ...fields }));
		}
	}
	for (const skipped of send.skipped) {
		rows.push(row(skipped.item, { ...skippedFields(skipped), ...leftOut }));
	}
	return rows;
}

function heldFields(entry: HeldEntry): IDataObject {
	return {
		input: entry.input,
		send_outcome: entry.state,
		batch_id: entry.batch_id,
		reason: entry.reason,
	};
}

/** A number not sent, as its row says it: an opted-out or repeated number is a valid one. */
function skippedFields(skipped: Skipped): IDataObject {
	const { input, reason, sent_with_item } = skipped;
	return {
		msisdn: isLeftOut(skipped) ? input : null,
		input,
		send_outcome: 'skipped',
		reason,
		sent_with_item: sent_with_item ?? null,
	};
}

function rowFields(result: RequestResult): IDataObject {
	if (result.outcome === 'accepted') {
		return { send_outcome: 'accepted', batch_id: result.response.batch_id ?? null };
	}
	if (result.outcome === 'not attempted' || result.outcome === 'held back') {
		return {
			send_outcome: 'not sent',
			error: 'Not sent: the run stopped before this request (an earlier request failed, or Stop)',
		};
	}
	return {
		send_outcome: result.outcome,
		batch_id: result.response?.batch_id ?? null,
		error: result.failure.message,
		service_error: result.response?.error ?? null,
	};
}

/**
 * The rows of an item that cannot be sent: one per number it gave (its bad ones `failed` with
 * their reason, its good ones `failed` because the item is), or one for the item when it failed
 * before its numbers were read.
 */
export function failedRows(failure: ItemFailure): Row[] {
	const { error } = failure;
	const failed = { send_outcome: 'failed', error: error.message };
	if (!failure.numbers) {
		return failure.items.map((item) => row(item, { ...failed, reason: error.message }));
	}
	return failure.numbers.flatMap(({ item, destinations, skipped }) => [
		...destinations.map((msisdn) =>
			row(item, { msisdn, ...failed, reason: `not sent: ${error.message}` }),
		),
		...skipped.map((entry) =>
			isLeftOut(entry)
				? row(item, skippedFields(entry))
				: row(item, { ...skippedFields(entry), ...failed }),
		),
	]);
}
