/* eslint-disable
	@n8n/community-nodes/no-restricted-globals
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * The Bulk SMS Trigger at campaign scale, through n8n-core's PollTriggerExecutor against a
 * replay server (the client alone): one poll of 1,000 watched batches × 1,000 reports, and of
 * 10,000 watched batches (a personalised campaign, one batch per contact), each beside a raw
 * client that fetches the same answers at the same concurrency and JSON.parses them; and the
 * static data the trigger stores, in bytes per destination and per watched batch.
 */
import type { IDataObject } from 'n8n-workflow';

import { pollOnce } from '../test/engine/harness';
import { inRounds, median, type Figure } from './figures';
import { jsonAnswer, startReplay, type Replay } from './replay';
import { rawClient as rawGetStatus, replayCredentials, watchNode } from './status';

const CONCURRENCY = 8;
/** Share of reports that became final between the baseline poll and the measured one. */
const CHANGED = 0.8;

interface Campaign {
	scenario: string;
	label: string;
	batches: number;
	reportsPerBatch: number;
}

const CAMPAIGNS: Campaign[] = [
	{
		scenario: 'trigger_poll_1000x1000_seconds',
		label: 'Trigger poll, 1,000 batches × 1,000 reports, 80% changed',
		batches: 1000,
		reportsPerBatch: 1000,
	},
	{
		scenario: 'trigger_poll_10000_batches',
		label: 'Trigger poll, 10,000 batches × 5 reports, 80% changed',
		batches: 10_000,
		reportsPerBatch: 5,
	},
];

export async function figures(): Promise<Figure[]> {
	const replay = await startReplay();
	try {
		const result: Figure[] = [];
		for (const campaign of CAMPAIGNS) {
			if (process.env.BENCH_ONLY && !campaign.scenario.includes(process.env.BENCH_ONLY)) continue;
			result.push(await pollFigure(replay, campaign));
		}
		return result;
	} finally {
		await replay.stop();
	}
}

/** Batch ids of 19 digits, as the service gives them, one apart. */
function batchIds(count: number): string[] {
	return Array.from({ length: count }, (_, i) =>
		(9_100_000_000_000_000_000n + BigInt(i)).toString(),
	);
}

async function pollFigure(replay: Replay, campaign: Campaign): Promise<Figure> {
	const ids = batchIds(campaign.batches);
	const node = watchNode(ids.join('\n'));
	const credentials = replayCredentials(replay);
	const answer = (batchId: string, i: number, finalShare: number) =>
		jsonAnswer({
			batchId,
			count: campaign.reportsPerBatch,
			finalShare,
			firstMsisdn: 447700000000 + i * 7919,
		});
	ids.forEach((batchId, i) => replay.set(batchId, answer(batchId, i, 0)));
	const baselineState: IDataObject = {};
	await pollOnce({ node, credentials, staticData: baselineState, persisted: {}, activation: true });
	const stateAllPending = JSON.stringify(baselineState);
	ids.forEach((batchId, i) => replay.set(batchId, answer(batchId, i, CHANGED)));

	const expected = Math.round(campaign.reportsPerBatch * CHANGED) * campaign.batches;
	let stateAfter = '';
	const timed = await inRounds({
		poll: async () => {
			const staticData = JSON.parse(stateAllPending) as IDataObject;
			const outcome = await pollOnce({ node, credentials, staticData, persisted: {} });
			const emitted = outcome.result?.[0]?.length ?? 0;
			if (emitted !== expected)
				throw new Error(`bench: expected ${expected} emitted, got ${emitted}`);
			stateAfter = JSON.stringify(staticData);
		},
		raw: () => rawClient(replay, ids),
	});
	const destinations = campaign.batches * campaign.reportsPerBatch;
	return {
		scenario: campaign.scenario,
		label: `${campaign.label} vs raw fetch + JSON.parse (${CONCURRENCY} in flight)`,
		measured: timed.poll.figures,
		baseline: timed.raw.figures,
		extra: {
			seconds: median(timed.poll.figures) / 1000,
			state_bytes_all_pending: stateAllPending.length,
			state_bytes_after: stateAfter.length,
			bytes_per_watched_batch_after: stateAfter.length / campaign.batches,
			bytes_per_destination_all_pending: stateAllPending.length / destinations,
		},
	};
}

/** The floor: status.ts's raw client for every batch, as many at once. */
async function rawClient(replay: Pick<Replay, 'baseUrl'>, ids: readonly string[]): Promise<void> {
	let next = 0;
	const worker = async () => {
		while (next < ids.length) await rawGetStatus(replay, ids[next++]);
	};
	await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}
