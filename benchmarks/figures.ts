/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	no-console
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * What every benchmark reports: a scenario measured beside its baseline in the same run, in
 * interleaved rounds, and the median of the per-round ratios with their spread. `npm run bench`
 * prints these and, with `--json FILE`, writes them as { "<scenario>": { ratio_median, ... } }.
 *
 * Why rounds: the baseline moves with the machine (GC state, a neighbour's load, CPU frequency)
 * as much as the node does. Measured one after the other, each leg meets a different machine and
 * their ratio wanders; measured in alternation, each round's two figures meet the same one, and
 * the median of the round ratios is steady where a ratio of medians is not.
 */
export interface Figure {
	/** Key in the JSON file, e.g. status_json_100k. */
	scenario: string;
	/** One line for people: what was measured, and against what. */
	label: string;
	/** One figure per round: milliseconds, or `unit` when it is not time. */
	measured: number[];
	/** The same work done the plainest way, one figure per round, index for index with measured. */
	baseline?: number[];
	unit?: string;
	/** Further figures worth printing and keeping (e.g. seconds, bytes per report). */
	extra?: Record<string, number>;
}

export interface Summary {
	median: number;
	min: number;
	rounds: number;
	baseline_median?: number;
	/** The median of measured[i] / baseline[i]: the figure a target is judged by. */
	ratio_median?: number;
	ratio_low?: number;
	ratio_high?: number;
	[extra: string]: number | undefined;
}

/** Rounds per scenario: at least 7, so that one disturbed round cannot move the median. */
export const ROUNDS = Math.max(7, Number(process.env.BENCH_ROUNDS) || 7);

/**
 * Rounds for scenarios whose round takes under a second (parsing, dates, Get Status, the
 * 100,000-report poll): their round ratios spread from ×2 to ×3 within one run, so a median of 7
 * moved up to 21% between three runs of one commit, and of 21 up to 11%; five times the rounds
 * cost about a minute.
 */
export const QUICK_ROUNDS = 5 * ROUNDS;

export interface Timed {
	/** Per round: wall time in milliseconds, or the figure the leg returned. */
	figures: number[];
	/** CPU time of the whole process per round (all threads, GC included), milliseconds. */
	cpu: number[];
}

/**
 * A leg of a round: its wall time is its figure, unless it measures itself (work around it not
 * to be counted, or a figure that is not time) and returns that figure.
 */
export type Leg = () => unknown;

/**
 * Runs every leg once to warm up (not counted), then `rounds` rounds of every leg, the order
 * rotating from round to round so that no leg always runs first or last. The heap is collected
 * before each leg when node runs with --expose-gc (`npm run bench` does), so that no leg pays
 * for the garbage of the one before.
 */
export async function inRounds<Name extends string>(
	legs: Record<Name, Leg>,
	rounds = ROUNDS,
): Promise<Record<Name, Timed>> {
	const names = Object.keys(legs) as Name[];
	const timed = {} as Record<Name, Timed>;
	for (const name of names) timed[name] = { figures: [], cpu: [] };
	for (const name of names) await legs[name]();
	for (let round = 0; round < rounds; round++) {
		for (let i = 0; i < names.length; i++) {
			const name = names[(round + i) % names.length];
			await timeOnce(legs[name], timed[name]);
		}
	}
	return timed;
}

async function timeOnce(leg: Leg, into: Timed): Promise<void> {
	(globalThis as { gc?: () => void }).gc?.();
	const cpuStart = process.cpuUsage();
	const start = process.hrtime.bigint();
	const own = await leg();
	const wall = Number(process.hrtime.bigint() - start) / 1e6;
	into.figures.push(typeof own === 'number' ? own : wall);
	const cpu = process.cpuUsage(cpuStart);
	into.cpu.push((cpu.user + cpu.system) / 1e3);
}

export function median(values: readonly number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = sorted.length >> 1;
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** measured[i] / baseline[i] for every round. */
export function roundRatios(measured: readonly number[], baseline: readonly number[]): number[] {
	return measured.map((value, i) => value / baseline[i]);
}

export function summarise(figure: Figure): Summary {
	const summary: Summary = {
		median: median(figure.measured),
		min: Math.min(...figure.measured),
		rounds: figure.measured.length,
	};
	if (figure.baseline) {
		const ratios = roundRatios(figure.measured, figure.baseline);
		summary.baseline_median = median(figure.baseline);
		summary.ratio_median = median(ratios);
		summary.ratio_low = Math.min(...ratios);
		summary.ratio_high = Math.max(...ratios);
	}
	return { ...summary, ...figure.extra };
}

export function printFigure(figure: Figure): void {
	const s = summarise(figure);
	const unit = figure.unit ?? 'ms';
	const value = (n: number) => `${n < 10 ? n.toFixed(2) : n.toFixed(0)} ${unit}`;
	const ratio = (n: number | undefined) => `×${(n as number).toFixed(2)}`;
	const against =
		s.ratio_median === undefined
			? ''
			: `  baseline ${value(s.baseline_median as number)}  ${ratio(s.ratio_median)} (${s.rounds} rounds, ${ratio(s.ratio_low)}–${ratio(s.ratio_high)})`;
	const extra = Object.entries(figure.extra ?? {})
		.map(([key, n]) => `  ${key} ${Number.isInteger(n) ? n : n.toFixed(2)}`)
		.join('');
	console.log(`${figure.label.padEnd(58)} median ${value(s.median)}${against}${extra}`);
}
