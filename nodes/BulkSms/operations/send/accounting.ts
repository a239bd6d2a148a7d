/**
 * What became of every destination when a send fails: accepted (with batch ids), unknown
 * (may have been taken), not sent. Written for people as counts and the first few, and in
 * full, item by item, in the error's context for anyone who reads it as data.
 */
import type { IDataObject } from 'n8n-workflow';

import { count, listFew } from '../../../shared/domain/words';
import type { Send } from './model';
import { itemOf } from './plan';
import type { RequestResult, SendResults } from './run';

/** The sentence about the request that failed, and about the later chunks of its send. */
export function explainRequest(result: RequestResult, destinations: readonly string[]): string {
	if (result.outcome === 'unknown') {
		return `The outcome for this request's ${count(destinations.length)} destination(s) is unknown: ${listFew(destinations)}.`;
	}
	return `This request's ${count(destinations.length)} destination(s) were not sent.`;
}

interface Entry {
	item: number;
	outcome: string;
	batch_ids: string[];
	destinations: string[];
	skipped?: IDataObject[];
}

/** One entry per item and request (a request may carry the numbers of several items). */
function entriesOf({ send, results }: SendResults): Entry[] {
	const entries: Entry[] = [];
	results.forEach((result, index) => {
		const outcome = result.outcome === 'not attempted' ? 'not sent' : result.outcome;
		const batchId = 'response' in result ? result.response?.batch_id : undefined;
		const byItem = new Map<number, string[]>();
		for (const destination of send.chunks[index]) {
			const item = itemOf(send, destination);
			const list = byItem.get(item);
			if (list) list.push(destination);
			else byItem.set(item, [destination]);
		}
		for (const [item, destinations] of byItem) {
			entries.push({ item, outcome, batch_ids: batchId ? [batchId] : [], destinations });
		}
	});
	for (const skipped of send.skipped) {
		const { item, ...rest } = skipped;
		entries.push({ item, outcome: 'skipped', batch_ids: [], destinations: [], skipped: [rest] });
	}
	return entries;
}

interface Tally {
	batches: string[];
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

function count1(t: Tally, send: Send, result: RequestResult, destinations: string[]): void {
	switch (result.outcome) {
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
	return { sentences, items: all.flatMap(entriesOf) as unknown as IDataObject[] };
}
