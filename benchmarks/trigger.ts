/* eslint-disable
	@n8n/community-nodes/no-dangerous-functions,
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	no-console
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * The Bulk SMS Trigger at campaign scale, through n8n-core's PollTriggerExecutor against a
 * replay server (the client alone). One poll reads a bounded number of reports
 * (nodes/BulkSmsTrigger/read.ts), so each scenario measures one poll of a campaign that a poll
 * reads in turns or at once, beside a raw client that fetches the same batches at the same
 * concurrency and JSON.parses them:
 * - 1,000 watched batches × 1,000 reports, 80% changed: the poll reads its 100,000 reports;
 * - 10,000 watched batches × 5 reports (a personalised campaign), all read in one poll;
 * - 10,000 watched batches × 1,000 reports (ten million destinations, the trigger's memory of a
 *   whole turn in the static data), in child processes so that each leg's peak RSS is its own:
 *   seconds and peak RSS of one poll.
 * And the static data the trigger stores, in bytes per destination and per watched batch.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { IDataObject } from 'n8n-workflow';

import { advance, type StatusReport } from '../nodes/shared/domain/watch';
import { emptyState, type WatchState } from '../nodes/shared/domain/watchState';
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

const LARGE: Campaign = {
	scenario: 'trigger_poll_10000x1000',
	label: 'Trigger poll, 10,000 batches × 1,000 reports, 80% changed',
	batches: 10_000,
	reportsPerBatch: 1000,
};

export async function figures(): Promise<Figure[]> {
	const replay = await startReplay((batchId) => answerOf(LARGE, batchId, CHANGED));
	try {
		const result: Figure[] = [];
		for (const campaign of [...CAMPAIGNS, LARGE]) {
			if (process.env.BENCH_ONLY && !campaign.scenario.includes(process.env.BENCH_ONLY)) continue;
			if (campaign === LARGE) result.push(...(await largeFigures(replay)));
			else result.push(await pollFigure(replay, campaign));
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

const FIRST_MSISDN = 447700000000;
const firstMsisdn = (batch: number) => FIRST_MSISDN + batch * 7919;

function answerOf(campaign: Campaign, batchId: string, finalShare: number) {
	const batch = Number(BigInt(batchId) - 9_100_000_000_000_000_000n);
	if (batch < 0 || batch >= campaign.batches) return undefined;
	return jsonAnswer({
		batchId,
		count: campaign.reportsPerBatch,
		finalShare,
		firstMsisdn: firstMsisdn(batch),
	});
}

async function pollFigure(replay: Replay, campaign: Campaign): Promise<Figure> {
	const ids = batchIds(campaign.batches);
	const node = watchNode(ids.join('\n'));
	const credentials = replayCredentials(replay);
	const setAll = (finalShare: number) =>
		ids.forEach((batchId) => replay.set(batchId, answerOf(campaign, batchId, finalShare)!));
	setAll(0);
	// A whole turn at baseline: the activation poll, then the next ones until every batch is known.
	const baselineState: IDataObject = {};
	await pollOnce({ node, credentials, staticData: baselineState, persisted: {}, activation: true });
	while (turnOf(baselineState) !== undefined)
		await pollOnce({ node, credentials, staticData: baselineState, persisted: {} });
	const stateAllPending = JSON.stringify(baselineState);
	setAll(CHANGED);

	let read: string[] = [];
	let stateAfter = '';
	const timed = await inRounds({
		poll: async () => {
			const staticData = JSON.parse(stateAllPending) as IDataObject;
			const outcome = await pollOnce({ node, credentials, staticData, persisted: {} });
			const emitted = outcome.result?.[0]?.length ?? 0;
			read = ids.slice(0, turnOf(staticData) ?? ids.length);
			const expected = Math.round(campaign.reportsPerBatch * CHANGED) * read.length;
			if (emitted !== expected)
				throw new Error(`bench: expected ${expected} emitted, got ${emitted}`);
			stateAfter = JSON.stringify(staticData);
		},
		raw: () => rawClient(replay, read.length > 0 ? read : ids),
	});
	const destinations = campaign.batches * campaign.reportsPerBatch;
	return {
		scenario: campaign.scenario,
		label: `${campaign.label} vs raw fetch + JSON.parse (${CONCURRENCY} in flight)`,
		measured: timed.poll.figures,
		baseline: timed.raw.figures,
		extra: {
			seconds: median(timed.poll.figures) / 1000,
			batches_read: read.length,
			state_bytes_all_pending: stateAllPending.length,
			state_bytes_after: stateAfter.length,
			bytes_per_watched_batch_after: stateAfter.length / campaign.batches,
			bytes_per_destination_all_pending: stateAllPending.length / destinations,
		},
	};
}

/** Where the next poll starts in Batch IDs, when the last one did not read them all. */
function turnOf(staticData: IDataObject): number | undefined {
	const state = (staticData['node:Watch'] as IDataObject | undefined)?.watch as
		| WatchState
		| undefined;
	return state?.t;
}

/** The floor: status.ts's raw client for every batch, as many at once. */
async function rawClient(replay: Pick<Replay, 'baseUrl'>, ids: readonly string[]): Promise<void> {
	let next = 0;
	const worker = async () => {
		while (next < ids.length) await rawGetStatus(replay, ids[next++]);
	};
	await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

// ---------------------------------------------------------------- 10,000 × 1,000, in children

interface ChildFigures {
	seconds: number;
	peakMb: number;
	emitted: number;
	read: number;
}

/**
 * The state of a whole turn (every destination known, all en route), built with the trigger's own
 * change detection in steps of 100 batches as the polls would, and kept in a file for the
 * children: the poll's child loads it as n8n holds it, the raw child too, so that the state's
 * own memory is in both.
 */
async function largeFigures(replay: Replay): Promise<Figure[]> {
	const ids = batchIds(LARGE.batches);
	const options = { mode: 'final' as const, statuses: [], emitExisting: false };
	let state = emptyState();
	for (let from = 0; from < ids.length; from += 100) {
		const fetched = new Map<string, StatusReport[]>();
		ids.slice(from, from + 100).forEach((batchId, i) => {
			const first = firstMsisdn(from + i);
			const reports = Array.from({ length: LARGE.reportsPerBatch }, (_, n) => ({
				msisdn: String(first + n),
				status: 'ENROUTE',
			}));
			fetched.set(batchId, reports);
		});
		state = advance(state, ids, fetched, options).state;
	}
	delete state.t;
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bulk-sms-bench-'));
	const stateFile = path.join(dir, 'state.json');
	const staticData = { 'node:Watch': { watch: state } };
	fs.writeFileSync(stateFile, JSON.stringify(staticData));
	const stateBytes = fs.statSync(stateFile).size;
	try {
		// Each leg's figure is its child's own seconds; its peak RSS is kept beside, warm-up aside.
		const peaks = { poll: [] as number[], raw: [] as number[] };
		let last: ChildFigures | undefined;
		const leg = (mode: 'poll' | 'raw') => async () => {
			const figures = await child(mode, replay.baseUrl, stateFile);
			peaks[mode].push(figures.peakMb);
			if (mode === 'poll') last = figures;
			return figures.seconds;
		};
		const runs = await inRounds({ poll: leg('poll'), raw: leg('raw') });
		return [
			{
				scenario: `${LARGE.scenario}_seconds`,
				label: `${LARGE.label}, seconds of one poll vs raw`,
				measured: runs.poll.figures,
				baseline: runs.raw.figures,
				unit: 's',
				extra: {
					batches_read: last?.read ?? 0,
					emitted: last?.emitted ?? 0,
					state_bytes: stateBytes,
				},
			},
			{
				scenario: `${LARGE.scenario}_peak_rss`,
				label: `${LARGE.label}, peak RSS of one poll vs raw`,
				measured: peaks.poll.slice(1),
				baseline: peaks.raw.slice(1),
				unit: 'MB',
			},
		];
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

/** Runs this file as a child: one poll, or the raw client over as many batches as a poll reads. */
async function child(
	mode: 'poll' | 'raw',
	baseUrl: string,
	stateFile: string,
): Promise<ChildFigures> {
	return await new Promise((resolve, reject) => {
		const worker = spawn(
			process.execPath,
			['--import', 'tsx', __filename, mode, baseUrl, stateFile],
			{ cwd: path.resolve(__dirname, '..'), stdio: ['ignore', 'pipe', 'inherit'] },
		);
		let out = '';
		worker.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
		worker.on('error', reject);
		worker.on('close', (code) => {
			const line = /^figures (.*)$/m.exec(out);
			if (code !== 0 || !line) reject(new Error(`bench: ${mode} child failed (${code}): ${out}`));
			else resolve(JSON.parse(line[1]) as ChildFigures);
		});
	});
}

async function childMain(mode: string, baseUrl: string, stateFile: string): Promise<void> {
	const staticData = JSON.parse(fs.readFileSync(stateFile, 'utf8')) as IDataObject;
	const ids = batchIds(LARGE.batches);
	const start = performance.now();
	let emitted = 0;
	let read = 100;
	if (mode === 'poll') {
		const node = watchNode(ids.join('\n'));
		const credentials = replayCredentials({ baseUrl });
		const outcome = await pollOnce({ node, credentials, staticData, persisted: {} });
		emitted = outcome.result?.[0]?.length ?? 0;
		read = turnOf(staticData) ?? ids.length;
	} else await rawClient({ baseUrl }, ids.slice(0, read));
	const figures: ChildFigures = {
		seconds: (performance.now() - start) / 1000,
		peakMb: process.resourceUsage().maxRSS / 1024,
		emitted,
		read,
	};
	console.log(`figures ${JSON.stringify(figures)}`);
}

if (require.main === module) void childMain(process.argv[2], process.argv[3], process.argv[4]);
