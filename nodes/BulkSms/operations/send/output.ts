/** The output items of a send: one per batch (request), or one per destination given. */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { creditsFor } from '../../../shared/domain/message';
import { pairedWith } from '../../../shared/items';
import { explainRequest } from './accounting';
import { DUPLICATE, itemOf, OPTED_OUT, type Send } from './plan';
import type { RequestResult, SendResults } from './run';

function messageFields(send: Send, destinations: number): IDataObject {
	const fields: IDataObject = {
		encoding: send.measure.encoding,
		characters: send.measure.characters,
		parts: send.measure.parts,
		credits_expected: creditsFor(send.measure, destinations),
		validity_period: send.validity?.validity_period ?? null,
		valid_until: send.validity?.valid_until ?? null,
	};
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

/** Every number of the items was left out (opted out, or given by an earlier item). */
function nothingToSend(send: Send): INodeExecutionData {
	return {
		json: {
			send_outcome: 'skipped',
			requested: 0,
			destinations: [],
			skipped: send.skipped,
			duplicates_removed: send.duplicates,
			...messageFields(send, 0),
		},
		pairedItem: pairedWith(send.items),
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

/** A row for every number given, sent or skipped, paired with the item it came from. */
export function destinationRows({
	send,
	results,
}: SendResults): Array<INodeExecutionData & { item: number }> {
	const rows: Array<INodeExecutionData & { item: number }> = [];
	const perNumber = messageFields(send, 1);
	for (const [index, result] of results.entries()) {
		const fields = rowFields(result);
		for (const msisdn of send.chunks[index]) {
			const item = itemOf(send, msisdn);
			rows.push({ item, json: { msisdn, ...fields, ...perNumber }, pairedItem: { item } });
		}
	}
	for (const { item, input, reason, sent_with_item } of send.skipped) {
		// An opted-out or repeated number is a valid one; an invalid entry has no msisdn.
		const valid = reason === OPTED_OUT || reason === DUPLICATE;
		const json: IDataObject = {
			msisdn: valid ? input : null,
			input,
			send_outcome: 'skipped',
			reason,
		};
		if (sent_with_item !== undefined) json.sent_with_item = sent_with_item;
		rows.push({ item, json, pairedItem: { item } });
	}
	return rows;
}

function rowFields(result: RequestResult): IDataObject {
	if (result.outcome === 'accepted') {
		return { send_outcome: 'accepted', batch_id: result.response.batch_id ?? null };
	}
	if (result.outcome === 'not attempted') {
		return {
			send_outcome: 'not sent',
			batch_id: null,
			error: 'Not sent: an earlier request of the same send failed',
		};
	}
	const fields: IDataObject = {
		send_outcome: result.outcome,
		batch_id: result.response?.batch_id ?? null,
		error: result.failure.message,
	};
	if (result.response?.error) fields.service_error = result.response.error;
	return fields;
}
