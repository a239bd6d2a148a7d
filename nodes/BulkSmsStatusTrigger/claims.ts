/**
 * Which execution emits a report that copies of one callback brought to several executions at
 * once, in queue mode: main and a webhook process each received a copy, and two workers run the
 * executions they started. The process that received a callback tells its own copies apart
 * (memory.ts); across processes only n8n's deduplication store is shared at once.
 *
 * Why claims: the store reads its record, adds to it and writes it back, without a lock, so two
 * executions' look-ups can both read the record before either has written it: both find the
 * report new. In queue mode, copies posted at once and split between main and a webhook process
 * were emitted twice with one look-up, and never with claims (docs/queue-mode.md, step 6).
 *
 * How: an execution records, with each report, a claim of its own; waits SETTLE_MS, longer than a
 * look-up takes, so that every write that began before its own has landed; then looks for its
 * claim. A write holds what it read plus its own items, so the record keeps the report with the
 * claim of the execution that first wrote it, and no other claim beside it (an execution that
 * wrote later read the report, and knew it was not news): the execution whose claim is there
 * emits, the others do not. A claim gone with its report was undone by a write of other reports
 * that began before it: that execution claims again. test/statusTrigger/claims.test.ts holds it,
 * and test/statusTrigger/exactlyOnce.test.ts shows two workers emitting one report twice without.
 */
import { randomBytes } from 'crypto';
import { sleep } from 'n8n-workflow';

/** Records the items and gives those that were recorded before (n8n's checkProcessedAndRecord). */
export type RecordItems = (items: string[]) => Promise<Set<string>>;

/**
 * The reports the store keeps claims for (two entries each), the latest first: enough for copies
 * that arrive within minutes of each other. A repeat that comes later is told apart by the memory
 * of the process that receives it (memory.ts); the store's cost grows with what it holds, since
 * n8n reads and rewrites the whole record on every look-up.
 */
export const CLAIMED_REPORTS = 10_000;

/** Longer than one look-up of the store takes (a read and a write of one database row). */
export const SETTLE_MS = 100;
/** Claims undone by writes of other reports, again and again: then the report is emitted. */
const ROUNDS = 5;

/** Which of `keys` this execution is the first to emit. */
export async function claimFirst(record: RecordItems, keys: readonly string[]): Promise<boolean[]> {
	const first = keys.map(() => false);
	let open = keys.map((_, index) => index);
	for (let round = 0; round < ROUNDS && open.length > 0; round++) {
		const claim = claimOf(keys);
		const before = await record([...open.map((i) => keys[i]), ...open.map(claim)]);
		const contenders = open.filter((i) => !before.has(keys[i]));
		if (contenders.length === 0) return first;
		await sleep(SETTLE_MS);
		const kept = await record(contenders.map(claim));
		for (const i of contenders) first[i] = kept.has(claim(i));
		open = contenders.filter((i) => !first[i]);
	}
	// Still undone after every round (the store is written without pause): emit, never lose.
	for (const i of open) first[i] = true;
	return first;
}

/** A claim on key i: the key and a random tag of this execution's round, unlike any other claim. */
function claimOf(keys: readonly string[]): (index: number) => string {
	const tag = randomBytes(9).toString('base64url');
	return (index) => `${keys[index]}#${tag}`;
}
