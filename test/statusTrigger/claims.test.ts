/* eslint-disable
	@n8n/community-nodes/no-restricted-globals
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * Claims in n8n's deduplication store (nodes/BulkSmsStatusTrigger/claims.ts), against a store that
 * behaves like n8n's: each call reads the record, and writes back what it read plus its items, a
 * round trip later, without a lock.
 */
import { claimFirst, type RecordItems } from '../../nodes/BulkSmsStatusTrigger/claims';
import { StoreQueue } from '../../nodes/shared/deduplicationStore';

const roundTrip = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One record, read and written as n8n's store does; `undoNext` makes a stale write follow the next one. */
class RacyStore {
	record = new Set<string>();
	undoNext = false;

	readonly call: RecordItems = async (items) => {
		const read = new Set(this.record);
		await roundTrip();
		const stale = new Set(this.record);
		this.record = new Set([...read, ...items]);
		if (this.undoNext) {
			// A look-up of other reports that read before this write lands after it.
			this.undoNext = false;
			this.record = stale;
		}
		return new Set(items.filter((item) => read.has(item)));
	};
}

it('lets exactly one of two executions that look at the same moment emit a report', async () => {
	const store = new RacyStore();
	const [a, b] = await Promise.all([claimFirst(store.call, ['k']), claimFirst(store.call, ['k'])]);
	expect([a[0], b[0]].sort()).toEqual([false, true]);
});

it('does not emit a report the store already has; a new one beside it is emitted', async () => {
	const store = new RacyStore();
	store.record.add('seen');
	expect(await claimFirst(store.call, ['seen', 'new'])).toEqual([false, true]);
});

it('claims again when a write of other reports undid its claim, and emits the report', async () => {
	const store = new RacyStore();
	store.undoNext = true;
	expect(await claimFirst(store.call, ['k'])).toEqual([true]);
	expect(store.record.has('k')).toBe(true);
});

it("runs this process's calls to one record one at a time, in order, a failed one not stopping the next", async () => {
	const turns = new StoreQueue();
	const lookups = { run: <T>(work: () => Promise<T>) => turns.queued('one record', work) };
	const order: string[] = [];
	const step = (name: string, ms: number) => () =>
		new Promise<void>((resolve) =>
			setTimeout(() => {
				order.push(name);
				resolve();
			}, ms),
		);
	await Promise.allSettled([
		lookups.run(step('slow', 30)),
		lookups.run(() => Promise.reject(new Error('no'))),
		lookups.run(step('fast', 1)),
	]);
	expect(order).toEqual(['slow', 'fast']);
});
