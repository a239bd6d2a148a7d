/**
 * Get Status and one trigger poll of 100,000 reports, end to end through n8n's engine, against
 * a replay server; the baseline is a raw client: fetch the same bytes and JSON.parse them
 * (which would corrupt the ids: it is the floor, not an alternative).
 */
import type { IDataObject, INode } from 'n8n-workflow';

import { BULK_SMS_TRIGGER, outputOf, pollOnce, runWorkflow } from '../test/engine/harness';
import { getStatus as getStatusNode, line, trigger } from '../test/bulkSms/workflow';
import { inRounds, QUICK_ROUNDS, type Figure } from './figures';
import { jsonAnswer, startReplay, xmlAnswer, type Replay } from './replay';

export const BATCH = '9007199254740993';
export const REPORTS_100K = 100_000;

export async function figures(): Promise<Figure[]> {
	const replay = await startReplay();
	try {
		return [...(await getStatusFigures(replay)), await triggerPollFigure(replay)];
	} finally {
		await replay.stop();
	}
}

/** Each case in rounds with its own raw baseline, the replay serving that case's answer. */
async function getStatusFigures(replay: Replay): Promise<Figure[]> {
	const spec = { batchId: BATCH, count: REPORTS_100K, finalShare: 0.8 };
	const json = jsonAnswer(spec);
	const xml = xmlAnswer(spec);
	const cases: Array<[string, string, 'json' | 'xml', string]> = [
		['status_json_100k', 'Get Status, 100,000 reports, JSON, UTC', 'json', 'UTC'],
		['status_xml_100k', 'Get Status, 100,000 reports, XML, UTC', 'xml', 'UTC'],
		[
			'status_json_100k_berlin',
			'Get Status, 100,000 reports, JSON, Europe/Berlin',
			'json',
			'Europe/Berlin',
		],
	];
	const result: Figure[] = [];
	for (const [scenario, label, format, timeZone] of cases) {
		// The raw client reads the JSON answer in every case: JSON.parse is the floor.
		const timed = await inRounds(
			{
				node: () => {
					replay.set(BATCH, format === 'json' ? json : xml);
					return getStatus(replay, format, timeZone);
				},
				raw: () => {
					replay.set(BATCH, json);
					return rawClient(replay, BATCH);
				},
			},
			QUICK_ROUNDS,
		);
		result.push({
			scenario,
			label: `${label} vs raw fetch + JSON.parse`,
			measured: timed.node.figures,
			baseline: timed.raw.figures,
		});
	}
	return result;
}

/** The floor: the same request with fetch, and JSON.parse of the (JSON) answer. */
export async function rawClient(
	replay: Pick<Replay, 'baseUrl'>,
	batchId = BATCH,
): Promise<unknown> {
	const res = await fetch(`${replay.baseUrl}/api/sms/get_status?batch_id=${batchId}`, {
		headers: { Accept: 'application/json', Authorization: 'Basic ZGVtbzpkZW1v' },
	});
	return JSON.parse(await res.text());
}

/** Credentials that point the nodes at the replay server (which takes any user). */
export function replayCredentials(replay: Pick<Replay, 'baseUrl'>, timeZone = 'UTC') {
	return { bulkSmsApi: { baseUrl: replay.baseUrl, username: 'demo', password: 'demo', timeZone } };
}

/** The Bulk SMS Trigger watching `batchIds` (one per line), emitting final reports. */
export function watchNode(batchIds: string): INode {
	return {
		id: 'watch',
		name: 'Watch',
		type: BULK_SMS_TRIGGER,
		typeVersion: 1,
		position: [0, 0],
		parameters: { batchIds, emit: 'final' },
	};
}

export async function getStatus(
	replay: Pick<Replay, 'baseUrl'>,
	format: 'json' | 'xml',
	timeZone: string,
): Promise<void> {
	const run = await runWorkflow({
		...line(trigger(), getStatusNode({ batchId: BATCH, statusOptions: { format } })),
		credentials: replayCredentials(replay, timeZone),
	});
	const items = outputOf(run, 'Get Status');
	if (items.length !== REPORTS_100K)
		throw new Error(`bench: expected ${REPORTS_100K} reports, got ${items.length}`);
}

/**
 * One poll in which 80,000 of 100,000 watched reports became final, from the state a first
 * poll left when all were en route; every measured run starts from that same state.
 */
async function triggerPollFigure(replay: Replay): Promise<Figure> {
	const node = watchNode(BATCH);
	const start = { batchId: BATCH, count: REPORTS_100K, finalShare: 0 };
	const later = jsonAnswer({ batchId: BATCH, count: REPORTS_100K, finalShare: 0.8 });
	replay.set(BATCH, jsonAnswer(start));
	const before: IDataObject = {};
	await pollOnce({
		node,
		credentials: replayCredentials(replay),
		staticData: before,
		persisted: {},
		activation: true,
	});
	const snapshot = JSON.stringify(before);
	replay.set(BATCH, later);
	const timed = await inRounds(
		{
			poll: async () => {
				const outcome = await pollOnce({
					node,
					credentials: replayCredentials(replay),
					staticData: JSON.parse(snapshot) as IDataObject,
					persisted: {},
				});
				const emitted = outcome.result?.[0]?.length ?? 0;
				if (emitted !== 80_000) throw new Error(`bench: expected 80,000 emitted, got ${emitted}`);
			},
			raw: () => rawClient(replay, BATCH),
		},
		QUICK_ROUNDS,
	);
	return {
		scenario: 'trigger_poll_100k',
		label: 'Trigger poll, 100,000 watched, 80,000 changed, vs raw fetch + JSON.parse',
		measured: timed.poll.figures,
		baseline: timed.raw.figures,
	};
}
