/* eslint-disable
	@n8n/community-nodes/no-dangerous-functions,
	@n8n/community-nodes/no-hardcoded-secrets,
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	no-console
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * What Send's record costs (Send Each Number Once, on by default: the record is n8n's
 * deduplication store of the Send node, read and rewritten whole on every call; see
 * nodes/BulkSms/operations/send/record/), in the real product (n8nStart.ts):
 * - a Send of 1,000 numbers (one item, one request) whose node's record already holds 10,000,
 *   100,000, 1,000,000 or 2,000,000 values, beside the same Send with Send Each Number Once off,
 *   legs in rounds (figures.ts), a workflow for each. The records are filled beforehand from the
 *   editor, whose campaign is kept, with other numbers (two values a number). The legs are calls of
 *   the production webhook, each its own campaign: a leg takes its values out of the record when it
 *   ends, unless that costs more than leaving them to Resume Within (store.ts), which is the case
 *   past about 50,000 values: there the record grows by a leg's 2,000 values;
 * - a campaign of 100,000 personalised rows, one request each, Send's defaults (8 requests in
 *   flight), with its record vs without; each leg starts from an empty record, the leg before
 *   having taken its campaign out;
 * - interrupted campaigns, run from the editor: one message to 1,000,000 numbers in one item (1,000
 *   a request), and 100,000 personalised rows. n8n is killed (`kill -9`) once the sandbox has
 *   accepted half the numbers, started again, and the campaign run again from the editor; then,
 *   per number, how many times the sandbox accepted it, and which numbers the resumed run names
 *   in doubt (a Code node after Send gathers them, so that n8n hands back one item).
 * BENCH_ONLY=<key> runs one scenario; each runs in its own n8n, so that no leg's memory figures
 * carry another scenario's heap.
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';

import type { JsonObject } from '../scripts/n8n/runData';
import { waitUntil } from '../scripts/n8n/processes';
import type { Sandbox } from '../sandbox/server';
import { median, roundRatios, type Figure } from './figures';
import {
	batchIds,
	code,
	chosen,
	legsInRounds,
	send,
	startProduct,
	workflowIdOf,
	type LegResult,
	type Product,
	type Scenario,
	type Side,
} from './n8nStart';
import { meter, type ProcessFigures } from './processMeter';

/** Values a record holds before the legs, per side; `off` sends without a record. */
const RECORD_SIZES: Record<Side, number> = {
	'10k': 10_000,
	'100k': 100_000,
	'1m': 1_000_000,
	'2m': 2_000_000,
};
const OFF = 'off';
/** The one side of an interrupted campaign: its runs from the editor. */
const EDITOR = 'editor';
const NUMBERS = 1_000;
const CAMPAIGN_ROWS = 100_000;
const MILLION = 1_000_000;
/** Numbers sent by one run from the editor that fills a record (one item, 1,000 a request). */
const FILL_RUN = 100_000;
/** A run of a million numbers under load takes long; an hour and more is a finding, not a hang. */
const RUN_TIMEOUT_MS = 4 * 3_600_000;

const grouped = (n: number) => Math.round(n).toLocaleString('en-US');
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const NUMBER_JS = (index: string) => `'4477' + String(${index}).padStart(8, '0')`;
const numberAt = (index: number) => `4477${String(index).padStart(8, '0')}`;

/** One item with `count` numbers from `from` on: 1,000 from 0 unless the webhook's body says. */
const numbersItem = () =>
	code(
		'Numbers',
		`const { from = 0, count = ${NUMBERS} } = $input.first().json.body ?? {};
return [{ json: { numbers: Array.from({ length: count }, (_, i) => ${NUMBER_JS('from + i')}).join(',') } }];`,
	);

const campaignRows = () =>
	code(
		'Rows',
		`return Array.from({ length: ${CAMPAIGN_ROWS} }, (_, i) => ({ json: { phone: ${NUMBER_JS('i')}, name: 'Contact ' + i } }));`,
	);

const PERSONAL = '=Hi {{ $json.name }}, your appointment is tomorrow at 10.';

/**
 * What Send's items (One Item per Batch) say, in one item: numbers accepted now, held back as
 * sent before, and those named in doubt, by number.
 */
const countOutcomes = () =>
	code(
		'Count',
		`let accepted = 0;
let sentBefore = 0;
const inDoubt = [];
for (const { json } of $input.all()) {
	if (json.send_outcome === 'accepted') accepted += json.destinations.length;
	for (const entry of json.skipped ?? []) {
		if (entry.state === 'sent before') sentBefore++;
		if (entry.state === 'in doubt') inDoubt.push(entry.input);
	}
}
return [{ json: { accepted, sent_before: sentBefore, in_doubt: inDoubt } }];`,
	);

const withRecord = (on: boolean): JsonObject => (on ? {} : { sendEachNumberOnce: false });

const sendNumbers = (on: boolean) => () => [
	numbersItem(),
	send({ destinations: '={{ $json.numbers }}', message: 'Hi', sendOptions: withRecord(on) }),
];

const sendCampaign = (on: boolean) => () => [
	campaignRows(),
	send({ destinations: '={{ $json.phone }}', message: PERSONAL, sendOptions: withRecord(on) }),
];

export const SCENARIOS: Scenario[] = [
	{
		key: 'record_1000_numbers',
		label: `Send of ${grouped(NUMBERS)} numbers over a record of N values vs no record`,
		nodes: {
			[OFF]: sendNumbers(false),
			...Object.fromEntries(Object.keys(RECORD_SIZES).map((side) => [side, sendNumbers(true)])),
		},
		setup: fillRecords,
		check: sentEveryNumber,
	},
	{
		key: 'record_campaign_100k',
		label: `${grouped(CAMPAIGN_ROWS)} personalised rows, one request each: Send with its record vs without`,
		nodes: { on: sendCampaign(true), [OFF]: sendCampaign(false) },
		check: batchIds,
		// A leg takes minutes, so a disturbed second weighs little in it: 3 pairs after the warm-up.
		rounds: 3,
	},
];

/** A campaign run from the editor, killed half way and run again. */
interface Interrupted {
	scenario: Scenario;
	/** Numbers it sends, `numberAt(0)` on. */
	numbers: number;
	/** The Webhook node's body for its runs. */
	body: JsonObject;
}

export const INTERRUPTED: Interrupted[] = [
	{
		scenario: {
			key: 'record_interrupted_1m',
			label: `${grouped(MILLION)} numbers in one item, one message, 1,000 a request, from the editor: kill -9 half way, run again`,
			nodes: {
				[EDITOR]: () => [
					numbersItem(),
					send({
						destinations: '={{ $json.numbers }}',
						message: 'Hi',
						sendOptions: { maxPerRequest: 1000 },
					}),
					countOutcomes(),
				],
			},
			check: batchIds,
		},
		numbers: MILLION,
		body: { count: MILLION },
	},
	{
		scenario: {
			key: 'record_interrupted_100k',
			label: `${grouped(CAMPAIGN_ROWS)} personalised rows, one request each, from the editor: kill -9 half way, run again`,
			nodes: {
				[EDITOR]: () => [
					campaignRows(),
					send({ destinations: '={{ $json.phone }}', message: PERSONAL, sendOptions: {} }),
					countOutcomes(),
				],
			},
			check: batchIds,
		},
		numbers: CAMPAIGN_ROWS,
		body: {},
	},
];

/**
 * Fills each record from the editor with numbers the legs do not send, two values a number, and
 * checks that the sandbox took every one (a number held back would leave the record short).
 */
async function fillRecords(product: Product): Promise<void> {
	const key = SCENARIOS[0].key;
	for (const [side, values] of Object.entries(RECORD_SIZES)) {
		const started = performance.now();
		for (let from = NUMBERS; from < NUMBERS + values / 2; from += FILL_RUN) {
			const count = Math.min(FILL_RUN, NUMBERS + values / 2 - from);
			const sent = await product.sandboxed(async (sandbox) => {
				await product.runInEditor(key, side, { from, count });
				return sandbox.received().destinations.length;
			});
			if (sent !== count)
				throw new Error(`bench: filling the record of ${side} sent ${sent} of ${count} numbers`);
		}
		console.log(
			`  filled the record of ${side} from the editor (${grouped(values / 2)} numbers) in ${seconds(performance.now() - started)}`,
		);
	}
	printRecordValues(product, key, 'before the legs');
}

/** Every leg must send all its numbers: one held back by the record would make it cheaper. */
function sentEveryNumber(sandbox: Sandbox, answer: JsonObject[]): { exact: number; total: number } {
	const sent = sandbox.received().destinations.length;
	if (sent !== NUMBERS) throw new Error(`bench: a leg sent ${sent} of ${NUMBERS} numbers`);
	return batchIds(sandbox, answer);
}

/** `npm run bench -- --only record`: each scenario in its own n8n, the load said before and after. */
export async function figures(): Promise<Figure[]> {
	const result: Figure[] = [];
	for (const scenario of chosen(SCENARIOS)) {
		result.push(...(await inItsOwnN8n(scenario, (product) => legFigures(product, scenario))));
	}
	for (const interrupted of chosen(INTERRUPTED.map((one) => ({ ...one, key: one.scenario.key })))) {
		result.push(
			...(await inItsOwnN8n(interrupted.scenario, async (product) => [
				await interruptedAndResumed(product, interrupted),
			])),
		);
	}
	return result;
}

async function inItsOwnN8n(
	scenario: Scenario,
	work: (product: Product) => Promise<Figure[]>,
): Promise<Figure[]> {
	sayLoad(`${scenario.key} starts`);
	const started = performance.now();
	const product = await startProduct([scenario]);
	try {
		return await work(product);
	} finally {
		await product.stop();
		sayLoad(`${scenario.key} ended after ${seconds(performance.now() - started)}`);
	}
}

/** The machine is shared: the load (1, 5, 15 minutes) goes with the figures. */
function sayLoad(when: string): void {
	console.log(
		`  load ${loadavg()
			.map((n) => n.toFixed(1))
			.join(' ')} (${when})`,
	);
}

async function legFigures(product: Product, scenario: Scenario): Promise<Figure[]> {
	const counted = await legsInRounds(product, scenario);
	if (scenario.setup) printRecordValues(product, scenario.key, 'after the legs');
	return Object.keys(counted)
		.filter((side) => side !== OFF)
		.map((side) => figureOf(scenario, side, counted));
}

/** A side beside Send without its record, round by round: ratios and differences. */
function figureOf(scenario: Scenario, side: Side, counted: Record<Side, LegResult[]>): Figure {
	const of = (name: keyof ProcessFigures | 'ms' | 'ids_exact' | 'ids_total', from: Side) =>
		counted[from].map((result) => result[name]);
	const extra: Record<string, number> = {};
	for (const name of ['ms', 'main_cpu_s', 'main_peak_mib', 'main_rise_mib'] as const) {
		const on = of(name, side);
		const off = of(name, OFF);
		if (name !== 'ms') {
			extra[name] = median(on);
			extra[`off_${name}`] = median(off);
		}
		extra[`added_${name}`] = median(on.map((value, round) => value - off[round]));
	}
	const numbers = scenario.key === 'record_campaign_100k' ? CAMPAIGN_ROWS : NUMBERS;
	extra.added_ms_per_1000_numbers = (extra.added_ms * 1000) / numbers;
	extra.added_cpu_s_per_1000_numbers = (extra.added_main_cpu_s * 1000) / numbers;
	extra.main_cpu_ratio_median = median(roundRatios(of('main_cpu_s', side), of('main_cpu_s', OFF)));
	extra.ids_exact = Math.min(...of('ids_exact', side));
	extra.ids_total = median(of('ids_total', side));
	const values = RECORD_SIZES[side];
	return {
		scenario: values === undefined ? scenario.key : `${scenario.key}_over_${side}`,
		label:
			values === undefined
				? scenario.label
				: scenario.label.replace('N values', `${grouped(values)} values`),
		measured: of('ms', side),
		baseline: of('ms', OFF),
		extra,
	};
}

/**
 * How many values each side's record holds, read in n8n's database (n8n shows its deduplication
 * store nowhere) with the sqlite3 program; said to be unknown without it.
 */
function printRecordValues(product: Product, key: string, when: string): void {
	const query =
		"SELECT workflowId, json_array_length(value, '$.data') FROM processed_data ORDER BY workflowId";
	const read = spawnSync('sqlite3', ['-readonly', '-separator', ' ', product.database, query], {
		encoding: 'utf8',
	});
	if (read.status !== 0) {
		console.log(
			`  the records' sizes ${when}: unknown (sqlite3: ${read.error?.message ?? read.stderr})`,
		);
		return;
	}
	const sizes = read.stdout
		.trim()
		.split('\n')
		.map((line) => line.split(' '))
		.flatMap(([workflow, values]) => {
			const side = Object.keys(RECORD_SIZES).find((one) => workflowIdOf(key, one) === workflow);
			return side ? [`${side} ${grouped(Number(values))}`] : [];
		});
	console.log(`  values in the records ${when}: ${sizes.join(', ')}`);
}

/**
 * A campaign from the editor, `kill -9` of n8n once the sandbox has accepted half its numbers, n8n
 * started again and the campaign run again from the editor. One sandbox over both runs; the
 * numbers accepted so far are read from the account's credits (one message costs one credit).
 */
async function interruptedAndResumed(product: Product, interrupted: Interrupted): Promise<Figure> {
	const { scenario, numbers, body } = interrupted;
	return await product.sandboxed(async (sandbox) => {
		const credits = sandbox.accounts()[0].credits;
		const accepted = () => credits - sandbox.accounts()[0].credits;
		const ownPeak = peakOfThisProcess();
		const stopEcho = echoProgress(product);
		const started = performance.now();
		const firstMeter = meter(product.server.pid as number);
		let ended: unknown;
		const first = product.runInEditor(scenario.key, EDITOR, body).then(
			(answer) => (ended = answer),
			() => undefined, // n8n died under it
		);
		const halfWay = () => {
			if (ended) throw new Error(`bench: ${scenario.key} ended before n8n was killed`);
			return accepted() >= numbers / 2;
		};
		await waitUntil(halfWay, RUN_TIMEOUT_MS, `bench: ${scenario.key} half way`);
		const acceptedAtKill = accepted();
		const firstRun = { ms: performance.now() - started, ...firstMeter.stop() };
		const killedAt = performance.now();
		await product.crashAndRestart();
		await first;
		const restartMs = performance.now() - killedAt;
		const acceptedAfterKill = accepted() - acceptedAtKill;

		const resumedAt = performance.now();
		const resumedMeter = meter(product.server.pid as number);
		const [summary] = await product.runInEditor(scenario.key, EDITOR, body);
		const resumed = { ms: performance.now() - resumedAt, ...resumedMeter.stop() };

		const countedAt = performance.now();
		const times = timesAccepted(sandbox, numbers);
		const namedInDoubt = new Set((summary.in_doubt as string[]) ?? []);
		const leftOutNotNamed = times.filter((n, i) => n === 0 && !namedInDoubt.has(numberAt(i)));
		const inDoubtAccepted = times.filter((n, i) => n > 0 && namedInDoubt.has(numberAt(i)));
		const spread = [0, 1, 2].map((n) => times.filter((t) => (n < 2 ? t === n : t >= n)).length);
		const countMs = performance.now() - countedAt;
		const benchPeak = ownPeak();
		stopEcho();

		console.log(
			`[interrupted] ${scenario.label}: kill -9 at ${grouped(acceptedAtKill)} accepted ` +
				`(${grouped(acceptedAfterKill)} more accepted from requests on their way), restart, run again: ` +
				`sent 0 / 1 / 2+ times: ${spread.map(grouped).join(' / ')}; named in doubt: ${grouped(namedInDoubt.size)} ` +
				`(the sandbox had accepted ${grouped(inDoubtAccepted.length)} of them; left out and not named: ${grouped(leftOutNotNamed.length)}); the resumed run sent ${grouped(Number(summary.accepted))}, ` +
				`held back ${grouped(Number(summary.sent_before))} as sent before. First run ${seconds(firstRun.ms)} to the kill ` +
				`(main's peak ${grouped(firstRun.main_peak_mib)} MiB), restart ${seconds(restartMs)}, ` +
				`resumed run ${seconds(resumed.ms)} (main's peak ${grouped(resumed.main_peak_mib)} MiB, ` +
				`CPU ${resumed.main_cpu_s.toFixed(1)} s), counting ${seconds(countMs)}; ` +
				`the bench process (sandbox) peak ${grouped(benchPeak)} MiB`,
		);
		return {
			scenario: scenario.key,
			label: scenario.label,
			measured: [resumed.ms],
			extra: {
				accepted_at_kill: acceptedAtKill,
				accepted_after_kill: acceptedAfterKill,
				sent_0_times: spread[0],
				sent_1_time: spread[1],
				sent_2_or_more_times: spread[2],
				named_in_doubt: namedInDoubt.size,
				in_doubt_accepted: inDoubtAccepted.length,
				left_out_not_named: leftOutNotNamed.length,
				resumed_accepted: Number(summary.accepted),
				resumed_sent_before: Number(summary.sent_before),
				first_run_ms: firstRun.ms,
				first_main_peak_mib: firstRun.main_peak_mib,
				restart_ms: restartMs,
				resumed_main_cpu_s: resumed.main_cpu_s,
				resumed_main_peak_mib: resumed.main_peak_mib,
				resumed_runner_peak_mib: resumed.runner_peak_mib,
				bench_peak_mib: benchPeak,
			},
		};
	});
}

/** Send's progress lines in n8n's log (every 30 s of a long run), said again here once a minute. */
function echoProgress(product: Product): () => void {
	let said = '';
	const echo = setInterval(() => {
		const lines = product.server.log.match(/^.*Bulk SMS Send .*(so far|at the end): .*$/gm);
		const last = lines?.at(-1) ?? '';
		if (last !== said) console.log(`  n8n: ${(said = last).trim()}`);
	}, 60_000).unref();
	return () => clearInterval(echo);
}

/** How many times the sandbox accepted each number of the campaign, by index. */
function timesAccepted(sandbox: Sandbox, numbers: number): number[] {
	const accepted = new Map(
		sandbox.received().destinations.map(({ msisdn, accepted }) => [msisdn, accepted] as const),
	);
	return Array.from({ length: numbers }, (_, i) => accepted.get(numberAt(i)) ?? 0);
}

/** This process's peak resident set (the sandbox lives in it), MiB, sampled until called. */
function peakOfThisProcess(): () => number {
	let peak = process.memoryUsage.rss();
	const sampler = setInterval(
		() => (peak = Math.max(peak, process.memoryUsage.rss())),
		250,
	).unref();
	return () => {
		clearInterval(sampler);
		return Math.max(peak, process.memoryUsage.rss()) / 2 ** 20;
	};
}
