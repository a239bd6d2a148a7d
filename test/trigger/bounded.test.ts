/**
 * One poll holds a bounded number of reports and starts no read after a while, whatever is
 * watched: a campaign larger than that is read in turns, over several polls, and every status
 * change is still emitted once. Through n8n-core's PollTriggerExecutor against the sandbox (a
 * proxy in front counts the requests, and can slow them).
 */
import { Workflow, type IDataObject, type INodeParameters } from 'n8n-workflow';

import { BulkSmsTrigger } from '../../nodes/BulkSmsTrigger/BulkSmsTrigger.node';

import { overridePollBounds, POLL_BOUNDS } from '../../nodes/BulkSmsTrigger/read';
import { readState } from '../../nodes/shared/domain/watchState';
import { HarnessNodeTypes } from '../engine/harness';
import { FINAL_AFTER_MS, NUMBER, Proxy, sandboxWithBatches, Watcher } from './helpers';

/** Reads the trigger starts at once (the transport's READS_IN_FLIGHT). */
const IN_FLIGHT = 8;

let stop: (() => Promise<void>) | undefined;
let proxy: Proxy | undefined;
let restoreBounds: (() => void) | undefined;
afterEach(async () => {
	restoreBounds?.();
	restoreBounds = undefined;
	await proxy?.stop();
	await stop?.();
	proxy = undefined;
	stop = undefined;
});

/** A sandbox holding `batches` batches of `size` delivered messages, behind a counting proxy. */
async function campaign(batches: number, size: number): Promise<Watcher> {
	const destinations = Array.from({ length: batches }, (_, b) =>
		Array.from({ length: size }, (_, i) => NUMBER.delivered(b * size + i)),
	);
	const started = await sandboxWithBatches(destinations);
	stop = started.stop;
	proxy = await new Proxy(started.sandbox.baseUrl).start();
	const watcher = new Watcher(proxy.baseUrl, { batchIds: started.batchIds.join('\n') });
	finalise = () => started.sandbox.advance(FINAL_AFTER_MS);
	return watcher;
}
let finalise = () => {};

/** Polls, counting each poll's requests and every report emitted. */
async function pollsOf(watcher: Watcher, count: number) {
	const requests: number[] = [];
	const emitted = new Map<string, number>();
	for (let poll = 0; poll < count; poll++) {
		const before = proxy!.statusRequests.length;
		const items: IDataObject[] = await watcher.emitted();
		requests.push(proxy!.statusRequests.length - before);
		for (const item of items)
			emitted.set(String(item.msisdn), (emitted.get(String(item.msisdn)) ?? 0) + 1);
	}
	return { requests, emitted };
}

it('reads at most 100,000 reports in one poll of a 120,000-report campaign', async () => {
	// The report bound under test, not the time bound: a loaded machine must not end the poll first.
	restoreBounds = overridePollBounds({ readingMs: 10 * 60_000 });
	const watcher = await campaign(120, 1000);
	const { requests } = await pollsOf(watcher, 1);
	expect(POLL_BOUNDS.reports).toBe(100_000);
	expect(requests[0]).toBeLessThanOrEqual(100);
	expect(requests[0]).toBeGreaterThan(100 - IN_FLIGHT);
});

it('reads a larger campaign in turns: every batch in its turn, every final status emitted once', async () => {
	restoreBounds = overridePollBounds({ reports: 5000 });
	const watcher = await campaign(12, 1000);
	// All en route. Batches never read before may take a poll past the bound by the reads
	// already under way (up to 7): the bound then holds as soon as their sizes are known.
	const baseline = await pollsOf(watcher, 3);
	expect(Math.max(...baseline.requests)).toBeLessThanOrEqual(5 + IN_FLIGHT - 1);
	finalise();
	const { requests, emitted } = await pollsOf(watcher, 6);
	expect(Math.max(...requests)).toBeLessThanOrEqual(5);
	expect(emitted.size).toBe(12_000);
	expect([...emitted.values()].every((times) => times === 1)).toBe(true);
	// Each batch finished on the second read that found it final, none read more often.
	expect(readState(watcher.state).f).toHaveLength(12);
	expect(requests.reduce((sum, n) => sum + n, 0)).toBe(2 * 12);
});

it('starts no read after the reading time, and carries on from there in the next poll', async () => {
	restoreBounds = overridePollBounds({ readingMs: 200 });
	const watcher = await campaign(60, 1);
	const { requests } = await pollsOf(watcher, 2);
	// The proxy holds each answer 30 ms: 8 at a time, about 50 reads in 200 ms, never all 60.
	expect(requests[0]).toBeLessThan(60);
	expect(requests[0]).toBeGreaterThanOrEqual(IN_FLIGHT);
	const second = proxy!.batchesRequested().slice(requests[0]);
	const first = proxy!.batchesRequested().slice(0, requests[0]);
	// The second poll starts with the batches the first did not read.
	expect(first).not.toContain(second[0]);
});

describe('the editor says when Batch IDs is too long for one poll, and what to use instead', () => {
	const { description } = new BulkSmsTrigger();
	/** The hints the editor shows for these Batch IDs, as it evaluates them (n8n's expressions). */
	function shown(batchIds: unknown): string[] {
		const node = {
			id: 'n',
			name: 'Bulk SMS Trigger',
			type: description.name,
			typeVersion: 1,
			position: [0, 0] as [number, number],
			parameters: { batchIds } as INodeParameters,
		};
		const workflow = new Workflow({
			nodes: [node],
			connections: {},
			active: false,
			nodeTypes: new HarnessNodeTypes({ [description.name]: new BulkSmsTrigger() }),
		});
		return (description.hints ?? [])
			.filter(
				(hint) =>
					workflow.expression.getSimpleParameterValue(
						node,
						String(hint.displayCondition),
						'internal',
						{},
					) === true,
			)
			.map((hint) => hint.message);
	}
	const ids = (count: number) =>
		Array.from({ length: count }, (_, i) => String(9007199254740993n + BigInt(i)));

	it.each<[string, unknown, number]>([
		['a few ids: no hint', ids(3).join(', '), 0],
		['1,000 ids, one a line: no hint', ids(1000).join('\n'), 0],
		['1,001 ids, one a line: the hint', ids(1001).join('\n'), 1],
		['1,001 ids from an expression: the hint', `={{ ${JSON.stringify(ids(1001))} }}`, 1],
	])('%s', (_name, batchIds, hints) => {
		const messages = shown(batchIds);
		expect(messages).toHaveLength(hints);
		for (const message of messages) {
			expect(message).toMatch(/read in turns/);
			expect(message).toMatch(/Bulk SMS Status Trigger/);
		}
	});
});
