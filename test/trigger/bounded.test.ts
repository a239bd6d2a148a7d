/**
 * One poll holds a bounded number of reports, whatever is watched: a campaign larger than that is
 * read in turns, over several polls, and every final status is still emitted once. Through
 * n8n-core's PollTriggerExecutor against the sandbox (a proxy in front counts the requests).
 */
import { NUMBER, Proxy, sandboxWithBatches, Watcher, FINAL_AFTER_MS } from './helpers';

/** What one poll reads at most (nodes/BulkSmsTrigger/read.ts), and the reads already under way. */
const REPORTS_PER_POLL = 100_000;
const IN_FLIGHT = 8;

const BATCHES = 150;
const PER_BATCH = 1000;

let stop: (() => Promise<void>) | undefined;
let proxy: Proxy | undefined;
afterEach(async () => {
	await proxy?.stop();
	await stop?.();
});

it.failing(
	'reads a campaign of 150,000 reports in turns, each poll at most 100,000, and emits every final status once',
	async () => {
		const campaign = Array.from({ length: BATCHES }, (_, b) =>
			Array.from({ length: PER_BATCH }, (_, i) => NUMBER.delivered(b * PER_BATCH + i)),
		);
		const started = await sandboxWithBatches(campaign);
		stop = started.stop;
		proxy = await new Proxy(started.sandbox.baseUrl).start();
		const watcher = new Watcher(proxy.baseUrl, { batchIds: started.batchIds.join('\n') });
		const readPerPoll: number[] = [];
		const poll = async () => {
			const before = proxy!.statusRequests.length;
			const items = await watcher.emitted();
			readPerPoll.push(proxy!.statusRequests.length - before);
			return items;
		};
		await poll(); // activation: every message still en route
		started.sandbox.advance(FINAL_AFTER_MS);
		const emitted = new Map<string, number>();
		for (let turn = 0; turn < 6; turn++) {
			for (const item of await poll()) {
				const key = String(item.msisdn);
				emitted.set(key, (emitted.get(key) ?? 0) + 1);
			}
		}
		const most = Math.ceil(REPORTS_PER_POLL / PER_BATCH) + IN_FLIGHT - 1;
		expect(Math.max(...readPerPoll)).toBeLessThanOrEqual(most);
		expect(emitted.size).toBe(BATCHES * PER_BATCH);
		expect([...emitted.values()].every((times) => times === 1)).toBe(true);
	},
	120_000,
);
