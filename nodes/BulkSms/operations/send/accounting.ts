/**
 * What became of every destination when a send fails: accepted (with batch ids), unknown
 * (may have been taken), not sent. Written for people as counts and the first few, and in
 * full, item by item, in the error's context for anyone who reads it as data.
 */
import type { IDataObject } from 'n8n-workflow';

import { count, listFew } from '../../../shared/domain/words';
import { itemOf, type RequestResult, type Send, type SendResults } from './model';

type Failed = Extract<RequestResult, { failure: unknown }>;

/** The sentence about the request that failed. */
export function explainRequest(result: Failed): string {
	const { sent } = result;
	if (result.outcome === 'unknown') {
		return `The outcome for this request's ${count(sent.length)} destination(s) is unknown: ${listFew(sent)}.`;
	}
	return `This request's ${count(sent.length)} destination(s) were not sent.`;
}

interface ContextItem {
	item: number;
	outcome: string;
	batch_ids: string[];
	destinations: string[];
	skipped?: IDataObject[];
}

/** One entry per item and request (a request may carry the numbers of several items). */
function contextItemsOf({ send, results }: SendResults): ContextItem[] {
	const entries: ContextItem[] = [];
	results.forEach((result, index) => {
		const outcome = result.outcome === 'not attempted' ? 'not sent' : result.outcome;
		const batchIds =
			'response' in result && result.response?.batch_id ? [result.response.batch_id] : [];
		if ('held' in result) {
			for (const state of ['sent before', 'in doubt'] as const) {
				const numbers = result.held.filter((held) => held.state === state);
				const batchIds = [...new Set(numbers.flatMap((held) => held.batchId ?? []))];
				const msisdns = numbers.map((held) => held.msisdn);
				for (const [item, destinations] of byItem(send, msisdns)) {
					entries.push({ item, outcome: state, batch_ids: batchIds, destinations });
				}
			}
		}
		if (result.outcome === 'held back') return;
		const sent = 'sent' in result ? result.sent : send.chunks[index];
		for (const [item, destinations] of byItem(send, sent)) {
			entries.push({ item, outcome, batch_ids: batchIds, destinations });
		}
	});
	for (const skipped of send.skipped) {
		const { item, ...rest } = skipped;
		entries.push({ item, outcome: 'skipped', batch_ids: [], destinations: [], skipped: [rest] });
	}
	return entries;
}

/** The numbers grouped by the item each came from, in order. */
function byItem(send: Send, numbers: readonly string[]): Map<number, string[]> {
	const groups = new Map<number, string[]>();
	for (const msisdn of numbers) {
		const item = itemOf(send, msisdn);
		const group = groups.get(item);
		if (group) group.push(msisdn);
		else groups.set(item, [msisdn]);
	}
	return groups;
}

interface Tally {
	batches: string[];
	sentBefore: number;
	inDoubt: number;
	accepted: number;
	unknown: string[];
	unknownRequests: number;
	refused: number;
	refusedRequests: number;
	notAttempted: number;
	notAttemptedItems: Set<number>;
}

function tally(all: readonly SendResults[]): Tally {
	const t: Tally = {
		batches: [],
		sentBefore: 0,
		inDoubt: 0,
		accepted: 0,
		unknown: [],
		unknownRequests: 0,
		refused: 0,
		refusedRequests: 0,
		notAttempted: 0,
		notAttemptedItems: new Set(),
	};
	for (const { send, results } of all) {
		results.forEach((result, index) => count1(t, send, result, send.chunks[index]));
	}
	return t;
}

function count1(t: Tally, send: Send, result: RequestResult, chunk: string[]): void {
	if ('held' in result) {
		const doubt = result.held.filter((held) => held.state === 'in doubt').length;
		t.inDoubt += doubt;
		t.sentBefore += result.held.length - doubt;
	}
	const destinations = 'sent' in result ? result.sent : chunk;
	switch (result.outcome) {
		case 'held back':
			return;
		case 'accepted':
			t.batches.push(String(result.response.batch_id));
			t.accepted += destinations.length;
			return;
		case 'unknown':
			t.unknownRequests++;
			t.unknown.push(...destinations);
			if (result.response?.batch_id) t.batches.push(`${result.response.batch_id} (refused)`);
			return;
		case 'not attempted':
			t.notAttempted += destinations.length;
			for (const destination of destinations) {
				t.notAttemptedItems.add(itemOf(send, destination));
			}
			return;
		default:
			t.refusedRequests++;
			t.refused += destinations.length;
	}
}

/**
 * What became of every destination of the run, for the error that stops it: in sentences
 * (counts and the first few) and in full (`items`: one entry per item and request).
 */
export function accountOfRun(all: readonly SendResults[]): {
	sentences: string[];
	items: IDataObject[];
} {
	const t = tally(all);
	const items = [...t.notAttemptedItems].sort((a, b) => a - b);
	const sentences = [
		t.batches.length > 0
			? `Accepted: ${count(t.accepted)} destination(s) in ${count(t.batches.length)} batch(es): ${listFew(t.batches)}.`
			: 'No batch was accepted.',
		t.sentBefore > 0
			? `Sent before by an earlier run of the campaign, so not sent again: ${count(t.sentBefore)} destination(s).`
			: '',
		t.inDoubt > 0
			? `In doubt (an earlier run of the campaign sent them and no answer says whether the service took them), so not sent again: ${count(t.inDoubt)} destination(s).`
			: '',
		t.unknown.length > 0
			? `Outcome unknown: ${count(t.unknown.length)} destination(s) in ${count(t.unknownRequests)} request(s): ${listFew(t.unknown)}; check before resending them.`
			: '',
		t.refused > 0
			? `Not sent (refused or failed): ${count(t.refused)} destination(s) in ${count(t.refusedRequests)} request(s).`
			: '',
		t.notAttempted > 0
			? `Not sent (no request starts after a failure): ${count(t.notAttempted)} destination(s) of ${count(items.length)} item(s): item ${listFew(items)}.`
			: '',
	];
	return { sentences, items: all.flatMap(contextItemsOf) as unknown as IDataObject[] };
}
