/* eslint-disable
	@n8n/community-nodes/no-restricted-globals
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/*
 * n8n's deduplication store (`this.helpers.checkProcessedAndRecord`), which lives in n8n's CLI
 * package (deduplication/deduplication-helper.ts) and reaches nodes through n8n-core's
 * DataDeduplicationService. Reproduced here for what this package uses, mode "entries" only, with
 * the same behaviour: one record per workflow and context (the node's id for scope 'node'), read,
 * compared, extended, trimmed to maxEntries from the oldest, and written back, with a database
 * round trip between the read and the write and no lock, so that two callers at the same time can
 * both find an item new and one write can undo the other's; the first record is inserted, and a
 * second insert of the same record fails as the database's primary key makes it. removeProcessed
 * takes each item out by searching the whole record for it, as n8n's does.
 */
import { DataDeduplicationService } from 'n8n-core';
import type {
	DeduplicationItemTypes,
	DeduplicationScope,
	ICheckProcessedContextData,
	ICheckProcessedOptions,
	IDataDeduplicator,
	IDeduplicationOutput,
} from 'n8n-workflow';

/** One record's hashes, by "<workflow id> <context>". */
const records = new Map<string, string[]>();

/** Calls made, and calls still to fail as a database out of reach would (for tests that look). */
let calls = 0;
let failing = 0;
/** Look-ups made so far (checkProcessedAndRecord), by any context of this test process. */
let lookups = 0;
/** Values asked to be taken out (removeProcessed): each costs n8n a search of the whole record. */
let takenOut = 0;

/** A database round trip: other work runs in between, as it does while n8n awaits its database. */
async function roundTrip(): Promise<void> {
	await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Each call to the store: counted, and refused while a test makes the database unreachable. */
function reachDatabase(): void {
	calls++;
	if (failing > 0) {
		failing--;
		throw new Error('harness: the database cannot be reached');
	}
}

function recordKey(scope: DeduplicationScope, data: ICheckProcessedContextData): string {
	const context = scope === 'node' ? `n:${data.node?.id ?? ''}` : '';
	return `${data.workflow.id} ${context}`;
}

const harnessDeduplicator: IDataDeduplicator = {
	async checkProcessedAndRecord(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		data: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<IDeduplicationOutput> {
		if (options.mode !== 'entries') throw new Error('harness: only mode "entries" is reproduced');
		reachDatabase();
		lookups++;
		const key = recordKey(scope, data);
		await roundTrip();
		const found = records.get(key);
		const values = items.map(String);
		const trimmed = (list: string[]) =>
			list.slice(Math.max(0, list.length - (options.maxEntries ?? Infinity)));
		if (!found) {
			await roundTrip();
			if (records.has(key))
				throw new Error('harness: duplicate key value violates unique constraint');
			records.set(key, trimmed(values));
			return { new: items, processed: [] };
		}
		const known = new Set(found);
		const written = [...found];
		const output: IDeduplicationOutput = { new: [], processed: [] };
		values.forEach((value, index) => {
			if (known.has(value)) output.processed.push(items[index]);
			else {
				output.new.push(items[index]);
				written.push(value);
			}
		});
		await roundTrip();
		records.set(key, trimmed(written));
		return output;
	},
	async removeProcessed(items, scope, data) {
		reachDatabase();
		takenOut += items.length;
		const key = recordKey(scope, data);
		await roundTrip();
		const found = records.get(key);
		if (!found) return;
		const written = [...found];
		for (const value of items.map(String)) {
			const index = written.findIndex((entry) => entry === value);
			if (index !== -1) written.splice(index, 1);
		}
		await roundTrip();
		records.set(key, written);
	},
	async clearAllProcessedItems(scope, data) {
		reachDatabase();
		records.delete(recordKey(scope, data));
	},
	async getProcessedDataCount(scope, data) {
		reachDatabase();
		return records.get(recordKey(scope, data))?.length ?? 0;
	},
};

let installed = false;

/** Makes `checkProcessedAndRecord` work in every context of this test process (once). */
export function installDeduplication(): void {
	if (installed) return;
	installed = true;
	void DataDeduplicationService.init(harnessDeduplicator);
}

/** The values a node's record holds (scope 'node'), oldest first, for tests that look. */
export function recordOf(workflowId: string, nodeId: string): readonly string[] {
	return records.get(`${workflowId} n:${nodeId}`) ?? [];
}

/** How many calls the store has had in this test process. */
export function storeCalls(): number {
	return calls;
}

/** The next `count` calls to the store fail, as with a database out of reach. */
export function failStoreCalls(count: number): void {
	failing = count;
}

/** How many look-ups the store served so far (checkProcessedAndRecord calls). */
export function processedLookups(): number {
	return lookups;
}

/** How many values were asked to be taken out so far (removeProcessed). */
export function valuesTakenOut(): number {
	return takenOut;
}

/** What the store holds for a workflow (all its records), for tests that look. */
export function processedCount(workflowId: string): number {
	let count = 0;
	for (const [key, list] of records) if (key.startsWith(`${workflowId} `)) count += list.length;
	return count;
}
