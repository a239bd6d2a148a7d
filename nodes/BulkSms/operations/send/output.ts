/**
 * The output items of a send: one per batch (request), or one per destination given. A row that
 * was not sent (skipped, or failed under Continue On Fail) is paired with its input like the
 * others and read the same way: `send_outcome`, `batch_id` (null), `reason`.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { creditsFor } from '../../../shared/domain/message';
import { pairedWith } from '../../../shared/items';
import { explainRequest } from './accounting';
import type { ItemFailure, Send, Skipped } from './model';
import { itemOf } from './plan';
import { entriesText, isLeftOut } from './refusals';
import type { RequestResult, SendResults } from './run';

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

// ---------------------------------------------------------------------------------------
// One item per batch
// ---------------------------------------------------------------------------------------

export function batchItems({ send, results }: SendResults): INodeExecutionData[] {
	if (send.chunks.length === 0) return [nothingToSend(send)];
	const output: INodeExecutionData[] = [];
	let notSent = notAttempted(send, results); // listed once, on the first failed request
	for (const [index, result] of results.entries()) {
		if (result.outcome === 'not attempted') continue; // listed in the failed item's not_sent
		const json = batchJson(send, index, result);
		const pairedItem = pairedWith(pairedItems(send, index));
		if (result.outcome === 'accepted') output.push({ json, pairedItem });
		else {
			output.push({ json: failedJson(send, index, result, json, notSent), pairedItem });
			notSent = [];
		}
	}
	return output;
}

/** Every number of the items was left out: not valid, opted out, or given by an earlier item. */
function nothingToSend(send: Send): INodeExecutionData {
	return {
		json: {
			send_outcome: 'skipped',
			batch_id: null,
			requested: 0,
			destinations: [],
			skipped: send.skipped,
			reason: entriesText(send.skipped),
			duplicates_removed: send.duplicates,
			...messageFields(send, 0),
		},
		pairedItem: pairedWith(send.items),
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
	return {
		json: {
			send_outcome: 'failed',
			batch_id: null,
			requested: 0,
			destinations: [],
			skipped,
			reason: invalid.length > 0 ? entriesText(invalid) : error.message,
			error: error.message,
			...(error.description ? { description: error.description } : {}),
		},
		pairedItem: pairedWith(failure.items),
	};
}

/** The chunk's items; the first chunk also answers for items none of whose numbers went out. */
function pairedItems(send: Send, index: number): number[] {
	const items = send.chunks[index].map((destination) => itemOf(send, destination));
	if (index > 0) return items;
	const sending = new Set(send.sources.size > 0 ? send.sources.values() : [send.items[0]]);
	return [...items, ...send.items.filter((item) => !sending.has(item))];
}

function batchJson(send: Send, index: number, result: RequestResult): IDataObject {
	const destinations = send.chunks[index];
	const response = 'response' in result ? (result.response ?? {}) : {};
	const accepted = result.outcome === 'accepted';
	const first = index === 0;
	return {
		...response,
		requested: destinations.length,
		dropped_by_service: accepted ? destinations.length - result.response.batch_size : 0,
		destinations,
		// What was skipped belongs to the whole send, so it is reported once.
		skipped: first ? send.skipped : [],
		duplicates_removed: first ? send.duplicates : 0,
		...messageFields(send, destinations.length),
		chunk: index + 1,
		chunks: send.chunks.length,
		send_outcome: result.outcome,
	};
}

/**
 * Continue On Fail: n8n's error items carry the message in `error`, so the service's own
 * `error` text moves to `service_error`; `not_sent` lists the send's numbers never tried.
 */
function failedJson(
	send: Send,
	index: number,
	result: Failed,
	json: IDataObject,
	notSent: string[],
): IDataObject {
	const { error: serviceError, ...fields } = json;
	const later = notSent.length > 0 ? `${notSent.length} later destination(s) were not sent.` : '';
	return {
		...fields,
		...(serviceError === undefined ? {} : { service_error: serviceError }),
		not_sent: notSent,
		error: result.failure.message,
		description: [result.failure.description, explainRequest(result, send.chunks[index]), later]
			.filter(Boolean)
			.join(' '),
	};
}

type Failed = Exclude<RequestResult, { outcome: 'accepted' | 'not attempted' }>;

/** The send's destinations whose request never started because one of its requests failed. */
function notAttempted(send: Send, results: readonly RequestResult[]): string[] {
	return results.flatMap((result, index) =>
		result.outcome === 'not attempted' ? send.chunks[index] : [],
	);
}

// ---------------------------------------------------------------------------------------
// One item per destination
// ---------------------------------------------------------------------------------------

/**
 * Every row has these columns, in this order, null where they do not apply: n8n's Table view
 * and a sheet write-back then read every row alike.
 */
const ROW: IDataObject = {
	msisdn: null,
	input: null,
	send_outcome: null,
	batch_id: null,
	reason: null,
	sent_with_item: null,
	error: null,
	service_error: null,
	encoding: null,
	characters: null,
	parts: null,
	credits_expected: null,
	validity_period: null,
	valid_until: null,
};

type Row = INodeExecutionData & { item: number };

function row(item: number, fields: IDataObject): Row {
	return { item, json: { ...ROW, ...fields }, pairedItem: { item } };
}

/** A row for every number given, sent or skipped, paired with the item it came from. */
export function destinationRows({ send, results }: SendResults): Row[] {
	const rows: Row[] = [];
	const perNumber = measureFields(send, 1);
	for (const [index, result] of results.entries()) {
		const fields = { ...rowFields(result), ...perNumber };
		for (const msisdn of send.chunks[index])
			rows.push(row(itemOf(send, msisdn), { msisdn, ...fields }));
	}
	const leftOut = measureFields(send, 0);
	for (const skipped of send.skipped) {
		rows.push(row(skipped.item, { ...skippedFields(skipped), ...leftOut }));
	}
	return rows;
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
	if (result.outcome === 'not attempted') {
		return {
			send_outcome: 'not sent',
			error: 'Not sent: an earlier request of the same send failed',
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
