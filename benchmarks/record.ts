/* eslint-disable
	@n8n/community-nodes/no-hardcoded-secrets,
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	no-console
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * What Send's record costs (Send Each Number Once, on by default; off: the option
 * `sendEachNumberOnce: false`) in the real product (n8nStart.ts), issue 40. Every leg runs in an
 * `n8n start` of its own with only its workflow, so that its time and main's peak memory carry no
 * other leg's heap; a pair is the record on beside the record off, which goes first alternating
 * from pair to pair. A leg calls its webhook with 10 rows first (not measured: n8n's first-run
 * costs), then with the scenario's size, and checks in the sandbox that every number was sent
 * exactly once (one held back would make the leg cheaper). Every side's Send reads a Campaign Key
 * from the item (empty but for the earlier campaigns below), so the legs differ in the record only.
 * - record_campaign_10k / _100k / _1m (the million once): a personalised campaign, a Code node
 *   making N rows {phone, name} and Send, the message an expression of the row, a request a row;
 * - record_one_message_100k_rows: the same rows, one fixed message, Group Items With the Same
 *   Message on (requests of 1,000 numbers); record_one_item_100k_numbers: 100,000 numbers in one
 *   item. Each has two "on" legs: on an empty record, and on one that keeps ten earlier campaigns
 *   of the same size (ten runs from the editor, of other numbers, each with a Campaign Key of its
 *   own, which keeps it; then n8n is restarted, so the measured leg's memory is its own again);
 * - record_interrupted_1m: the personalised million from the editor, `kill -9` of n8n once the
 *   sandbox has accepted half, n8n started again, the campaign run again from the editor (measured:
 *   that run); beside it, in a fresh n8n, the numbers not accepted before the kill sent from the
 *   editor with the record off. Also: how many numbers the sandbox accepted 0, 1, 2+ times, and
 *   those the resumed run named in doubt.
 * BENCH_SCALE=<n> divides every size (a quick check); BENCH_PAIRS=<n> pairs (default 3; the 1m
 * scenarios: 1); BENCH_ONLY=<key,...> runs those scenarios.
 */
import { loadavg } from 'node:os';

import { packRepo } from '../scripts/n8n/package';
import { waitUntil } from '../scripts/n8n/processes';
import type { JsonObject } from '../scripts/n8n/runData';
import type { Sandbox } from '../sandbox/server';
import { median, type Figure } from './figures';
import {
	batchIds,
	chosen,
	code,
	send,
	startProduct,
	type LegResult,
	type Product,
	type Scenario,
	type Side,
} from './n8nStart';
import { meter } from './processMeter';

const SCALE = Math.max(1, Number(process.env.BENCH_SCALE) || 1);
const PAIRS = Math.max(1, Number(process.env.BENCH_PAIRS) || 3);
const sized = (n: number) => Math.max(100, Math.round(n / SCALE));
/** The warm-up call's rows. */
const WARM = 10;
const EARLIER_CAMPAIGNS = 10;
/** A run of a million numbers under load takes long; an hour and more is a finding, not a hang. */
const RUN_TIMEOUT_MS = 4 * 3_600_000;

const OFF = 'off';
const ON = 'on';
/** The record on, keeping ten earlier campaigns of the same size. */
const ON_KEPT = 'on_kept';
/** The interrupted campaign's runs from the editor; its baseline: the rest, record off. */
const EDITOR = 'editor';
const REST = 'rest';
const WARM_SIDE = 'warm';

const grouped = (n: number) => Math.round(n).toLocaleString('en-US');
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const numberAt = (index: number) => `4477${String(index).padStart(8, '0')}`;

type Ranges = Array<[number, number]>;

/**
 * The numbers of the webhook's body: `ranges` of indices ([from, to)), all N unless it says, and
 * a Campaign Key `key` on every item when it gives one (the ten earlier campaigns).
 */
const PICK = (n: number) => `const { ranges = [[0, ${n}]], key } = $input.first().json.body ?? {};
const withKey = key === undefined ? {} : { key };
const at = (i) => '4477' + String(i).padStart(8, '0');`;

const campaignRows = (n: number) =>
	code(
		'Rows',
		`${PICK(n)}
const rows = [];
for (const [from, to] of ranges) for (let i = from; i < to; i++) rows.push({ json: { phone: at(i), name: 'Contact ' + i, ...withKey } });
return rows;`,
	);

const numbersItem = (n: number) =>
	code(
		'Numbers',
		`${PICK(n)}
const numbers = [];
for (const [from, to] of ranges) for (let i = from; i < to; i++) numbers.push(at(i));
return [{ json: { numbers: numbers.join(','), ...withKey } }];`,
	);

const PERSONAL = '=Hi {{ $json.name }}, your appointment is tomorrow at 10.';

/**
 * Send, the record on or off. Every side reads the Campaign Key from the item (empty but for the
 * earlier campaigns), so the legs differ only in the record.
 */
const sendWith = (on: boolean, parameters: JsonObject, options: JsonObject = {}) =>
	send({
		...parameters,
		sendOptions: {
			campaign: '={{ $json.key }}',
			...options,
			...(on ? {} : { sendEachNumberOnce: false }),
		},
	});

type Build = (on: boolean, n: number) => JsonObject[];
const personalised: Build = (on, n) => [
	campaignRows(n),
	sendWith(on, { destinations: '={{ $json.phone }}', message: PERSONAL }),
];
const oneMessageRows: Build = (on, n) => [
	campaignRows(n),
	// Without Group Items With the Same Message, Send would make a request of every row.
	sendWith(on, { destinations: '={{ $json.phone }}', message: 'Hi' }, { groupSameMessage: true }),
];
const oneItem: Build = (on, n) => [
	numbersItem(n),
	sendWith(on, { destinations: '={{ $json.numbers }}', message: 'Hi' }),
];

/** A scenario of pairs: its sides are ON (and ON_KEPT) beside OFF. */
interface Paired {
	key: string;
	label: string;
	size: number;
	build: Build;
	kept: boolean;
	/** The million once: a leg takes many minutes. */
	pairs: number;
}

const paired = (key: string, label: string, size: number, build: Build, kept = false): Paired => ({
	key,
	label: `${label} (${grouped(sized(size))})`,
	size: sized(size),
	build,
	kept,
	pairs: size >= 1_000_000 ? 1 : PAIRS,
});

export const PAIRED: Paired[] = [
	paired('record_campaign_10k', 'personalised campaign', 10_000, personalised),
	paired('record_campaign_100k', 'personalised campaign', 100_000, personalised),
	paired('record_campaign_1m', 'personalised campaign', 1_000_000, personalised),
	paired('record_one_message_100k_rows', 'one message to rows', 100_000, oneMessageRows, true),
	paired('record_one_item_100k_numbers', 'numbers in one item', 100_000, oneItem, true),
];

const INTERRUPTED = { key: 'record_interrupted_1m', size: sized(1_000_000) };

const sidesOf = (scenario: Paired) => (scenario.kept ? [ON, ON_KEPT, OFF] : [ON, OFF]);

/** A paired scenario as n8nStart runs it, every side a workflow (`on` / `on_kept`: the record on). */
function asScenario(scenario: Paired, check: Scenario['check'] = batchIds): Scenario {
	const nodes = sidesOf(scenario).map((side) => [
		side,
		() => scenario.build(side !== OFF, scenario.size),
	]);
	return { key: scenario.key, label: scenario.label, nodes: Object.fromEntries(nodes), check };
}

/** For profile.ts (`n8n record_campaign_100k on`): one side's legs in one n8n, no warm-up of its own. */
export const SCENARIOS: Scenario[] = PAIRED.map((scenario) => asScenario(scenario));

/** `npm run bench -- --only record`. */
export async function figures(): Promise<Figure[]> {
	// Packed once: startProduct would build and pack again for every leg's n8n.
	process.env.BULKSMS_BENCH_TARBALL ||= packRepo({ quiet: true });
	const result: Figure[] = [];
	for (const scenario of chosen(PAIRED)) result.push(...(await pairs(scenario)));
	if (chosen([INTERRUPTED]).length) result.push(await interrupted());
	return result;
}

/** The scenario's pairs, printed as they end; a figure per "on" side beside OFF. */
async function pairs(scenario: Paired): Promise<Figure[]> {
	const sides = sidesOf(scenario);
	const legs: Record<Side, LegResult[]> = Object.fromEntries(sides.map((side) => [side, []]));
	for (let pair = 0; pair < scenario.pairs; pair++) {
		const order = pair % 2 ? [...sides].reverse() : sides;
		for (const side of order) legs[side].push(await freshLeg(scenario, side));
		const said = sides.map(
			(side) =>
				`${side} ${seconds(legs[side][pair].ms)} ${grouped(legs[side][pair].main_peak_mib)} MiB`,
		);
		console.log(
			`  ${scenario.key} pair ${pair + 1} (${order.join(' first, ')}): ${said.join(', ')}`,
		);
	}
	return sides.filter((side) => side !== OFF).map((side) => figureOf(scenario, side, legs));
}

function figureOf(scenario: Paired, side: Side, legs: Record<Side, LegResult[]>): Figure {
	const on = legs[side];
	const off = legs[OFF];
	const peakAdded = on.map((leg, i) => (leg.main_peak_mib / off[i].main_peak_mib - 1) * 100);
	return {
		scenario: side === ON ? scenario.key : `${scenario.key}_over_ten_kept`,
		label: `${scenario.label}${side === ON ? '' : ', ten campaigns kept'}: record on vs off`,
		measured: on.map((leg) => leg.ms),
		baseline: off.map((leg) => leg.ms),
		extra: {
			rows: scenario.size,
			main_peak_mib: median(on.map((leg) => leg.main_peak_mib)),
			off_main_peak_mib: median(off.map((leg) => leg.main_peak_mib)),
			main_peak_added_pct: median(peakAdded),
			main_cpu_s: median(on.map((leg) => leg.main_cpu_s)),
			off_main_cpu_s: median(off.map((leg) => leg.main_cpu_s)),
		},
	};
}

/** One leg in an n8n of its own, with only its workflow: the warm-up call, then the measured one. */
async function freshLeg(scenario: Paired, side: Side): Promise<LegResult> {
	let expected = WARM;
	const all = asScenario(scenario, (sandbox, answer) => sentOnce(sandbox, answer, expected));
	const only: Scenario = { ...all, nodes: { [side]: all.nodes[side] } };
	sayLoad(`${scenario.key} ${side} starts`);
	const product = await startProduct([only]);
	try {
		if (side === ON_KEPT) await keepEarlierCampaigns(product, scenario);
		await product.run(scenario.key, side, { ranges: [[0, WARM]] });
		expected = scenario.size;
		return await product.run(scenario.key, side);
	} finally {
		await product.stop();
	}
}

/**
 * Ten campaigns of the same size, of other numbers, from the editor, each with a Campaign Key of
 * its own, which keeps it in the record; then n8n started again, so that what those runs left in
 * main's heap is not counted in the measured leg.
 */
async function keepEarlierCampaigns(product: Product, scenario: Paired): Promise<void> {
	const started = performance.now();
	const { key, size } = scenario;
	for (let k = 1; k <= EARLIER_CAMPAIGNS; k++) {
		const ranges: Ranges = [[k * size, (k + 1) * size]];
		const body = { ranges, key: `earlier-${k}` };
		await product.sandboxed(async (sandbox) => {
			sentOnce(sandbox, await product.runInEditor(key, ON_KEPT, body), size);
		});
	}
	await product.crashAndRestart();
	console.log(
		`  ${key}: ten campaigns kept (${grouped(EARLIER_CAMPAIGNS * size)} numbers from the editor) in ${seconds(performance.now() - started)}, n8n restarted`,
	);
}

/** Every number sent exactly once, `expected` numbers; then the answer's batch ids. */
function sentOnce(sandbox: Sandbox, answer: JsonObject[], expected: number) {
	const destinations = sandbox.received().destinations;
	const twice = destinations.filter((one) => one.accepted !== 1).length;
	if (destinations.length !== expected || twice)
		throw new Error(
			`bench: sent ${destinations.length} of ${expected} numbers, ${twice} of them more than once`,
		);
	return batchIds(sandbox, answer);
}

/** The machine is shared: the load (1, 5, 15 minutes) goes with the figures. */
function sayLoad(when: string): void {
	const load = loadavg().map((n) => n.toFixed(1));
	console.log(`  load ${load.join(' ')} (${when})`);
}

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

/** The interrupted campaign's workflows: its own (record on), the warm-up's and the rest's (off). */
function interruptedScenario(): Scenario {
	const { key, size } = INTERRUPTED;
	const withCount = (on: boolean) => () => [...personalised(on, size), countOutcomes()];
	return {
		key,
		label: `personalised campaign (${grouped(size)}) from the editor, kill -9 half way, resumed, vs the rest with the record off`,
		nodes: { [EDITOR]: withCount(true), [WARM_SIDE]: withCount(false), [REST]: withCount(false) },
		check: batchIds,
	};
}

/** A run from the editor, timed and metered as the resumed run and the rest's run are. */
async function timedEditorRun(product: Product, key: string, side: Side, body: JsonObject) {
	const started = performance.now();
	const metered = meter(product.server.pid as number);
	const [answer] = await product.runInEditor(key, side, body);
	const { main_peak_mib, main_cpu_s } = metered.stop();
	return { ms: performance.now() - started, main_peak_mib, main_cpu_s, answer };
}

/** Numbers above the campaign's: a warm-up run that none of its counts see. */
const warmBody = (size: number) => ({ ranges: [[size, size + WARM]] });

/** The interrupted campaign, then the rest with the record off in a fresh n8n; one figure. */
async function interrupted(): Promise<Figure> {
	const scenario = interruptedScenario();
	sayLoad(`${scenario.key} starts`);
	let product = await startProduct([scenario]);
	const outcome = await killedAndResumed(product, scenario).finally(() => product.stop());
	sayLoad(`${scenario.key}: the rest, record off`);
	product = await startProduct([scenario]);
	const rest = await (async () => {
		await product.sandboxed(() => product.runInEditor(scenario.key, WARM_SIDE, warmBody(0)));
		return await product.sandboxed((sandbox) => restSent(product, sandbox, outcome.rest));
	})().finally(() => product.stop());
	const { resumed } = outcome;
	console.log(
		`[interrupted] the rest (${grouped(countOf(outcome.rest))} numbers) with the record off: ${seconds(rest.ms)}, main's peak ${grouped(rest.main_peak_mib)} MiB; resumed ${seconds(resumed.ms)}, ${grouped(resumed.main_peak_mib)} MiB`,
	);
	return {
		scenario: scenario.key,
		label: scenario.label,
		measured: [resumed.ms],
		baseline: [rest.ms],
		extra: {
			...outcome.extra,
			main_peak_mib: resumed.main_peak_mib,
			off_main_peak_mib: rest.main_peak_mib,
			main_peak_added_pct: (resumed.main_peak_mib / rest.main_peak_mib - 1) * 100,
		},
	};
}

async function restSent(product: Product, sandbox: Sandbox, ranges: Ranges) {
	const rest = await timedEditorRun(product, INTERRUPTED.key, REST, { ranges });
	sentOnce(sandbox, [], countOf(ranges));
	return rest;
}

const countOf = (ranges: Ranges) => ranges.reduce((sum, [from, to]) => sum + to - from, 0);

/**
 * The campaign from the editor, `kill -9` of n8n once the sandbox has accepted half its numbers
 * (read from the account's credits: one message, one credit), n8n started again, a warm-up run
 * of another workflow, the campaign run again from the editor: one sandbox over all of it.
 */
async function killedAndResumed(product: Product, scenario: Scenario) {
	const { key, size } = INTERRUPTED;
	return await product.sandboxed(async (sandbox) => {
		await product.runInEditor(key, WARM_SIDE, warmBody(size));
		const credits = sandbox.accounts()[0].credits;
		const accepted = () => credits - sandbox.accounts()[0].credits;
		const stopEcho = echoProgress(product);
		let ended = false;
		const first = product.runInEditor(key, EDITOR).then(
			() => (ended = true),
			() => undefined, // n8n died under it
		);
		const halfWay = () => {
			if (ended) throw new Error(`bench: ${key} ended before n8n was killed`);
			return accepted() >= size / 2;
		};
		await waitUntil(halfWay, RUN_TIMEOUT_MS, `bench: ${key} half way`);
		const atKill = accepted();
		await product.crashAndRestart();
		await first;
		const beforeResume = timesAccepted(sandbox, size);
		await product.runInEditor(key, WARM_SIDE, warmBody(size));
		const resumed = await timedEditorRun(product, key, EDITOR, {});
		stopEcho();
		const extra = countsAfterResume(sandbox, resumed.answer, size, atKill);
		console.log(`[interrupted] ${scenario.label}: ${JSON.stringify(extra)}`);
		return { resumed, extra, rest: unsent(beforeResume) };
	});
}

/** How many numbers were sent 0, 1, 2+ times, and those the resumed run named in doubt. */
function countsAfterResume(sandbox: Sandbox, summary: JsonObject, size: number, atKill: number) {
	const times = timesAccepted(sandbox, size);
	const namedInDoubt = new Set((summary.in_doubt as string[]) ?? []);
	const count = (test: (n: number, i: number) => boolean) => times.filter(test).length;
	return {
		accepted_at_kill: atKill,
		sent_0_times: count((n) => n === 0),
		sent_1_time: count((n) => n === 1),
		sent_2_or_more_times: count((n) => n >= 2),
		named_in_doubt: namedInDoubt.size,
		in_doubt_accepted: count((n, i) => n > 0 && namedInDoubt.has(numberAt(i))),
		left_out_not_named: count((n, i) => n === 0 && !namedInDoubt.has(numberAt(i))),
		resumed_accepted: Number(summary.accepted),
		resumed_sent_before: Number(summary.sent_before),
	};
}

/** The indices never accepted, as ranges: the body of the rest's run. */
function unsent(times: readonly number[]): Ranges {
	const ranges: Ranges = [];
	times.forEach((n, i) => {
		if (n > 0) return;
		const last = ranges.at(-1);
		if (last && last[1] === i) last[1] = i + 1;
		else ranges.push([i, i + 1]);
	});
	return ranges;
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
