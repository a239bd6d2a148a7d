/**
 * What every benchmark reports: a scenario measured beside its baseline in the same run,
 * min and median of several runs, and their ratio. `npm run bench` prints these and, with
 * `--json FILE`, writes them as { "<scenario>": { ratio_median, ratio_min, ... } }.
 */
export interface Figure {
	/** Key in the JSON file, e.g. status_json_100k. */
	scenario: string;
	/** One line for people: what was measured, and against what. */
	label: string;
	/** Milliseconds per run (or `unit` when it is not time). */
	measured: number[];
	/** The same work done the plainest way, measured in the same run. */
	baseline?: number[];
	unit?: string;
	/** Further figures worth printing and keeping (e.g. seconds, bytes per report). */
	extra?: Record<string, number>;
}

export interface Summary {
	median: number;
	min: number;
	baseline_median?: number;
	baseline_min?: number;
	ratio_median?: number;
	ratio_min?: number;
	[extra: string]: number | undefined;
}

/** Runs `work` `runs` times (after one warm-up run), returning milliseconds per run. */
export async function timeRuns(runs: number, work: () => unknown): Promise<number[]> {
	await work();
	const times: number[] = [];
	for (let run = 0; run < runs; run++) {
		const start = process.hrtime.bigint();
		await work();
		times.push(Number(process.hrtime.bigint() - start) / 1e6);
	}
	return times;
}

export function median(values: readonly number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = sorted.length >> 1;
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function summarise(figure: Figure): Summary {
	const summary: Summary = { median: median(figure.measured), min: Math.min(...figure.measured) };
	if (figure.baseline) {
		summary.baseline_median = median(figure.baseline);
		summary.baseline_min = Math.min(...figure.baseline);
		summary.ratio_median = summary.median / summary.baseline_median;
		summary.ratio_min = summary.min / summary.baseline_min;
	}
	return { ...summary, ...figure.extra };
}

export function printFigure(figure: Figure): void {
	const s = summarise(figure);
	const unit = figure.unit ?? 'ms';
	const value = (n: number) => `${n < 10 ? n.toFixed(2) : n.toFixed(0)} ${unit}`;
	const against =
		s.ratio_median === undefined
			? ''
			: `  baseline ${value(s.baseline_median as number)}  ×${s.ratio_median.toFixed(2)} (min ×${(s.ratio_min as number).toFixed(2)})`;
	const extra = Object.entries(figure.extra ?? {})
		.map(([key, n]) => `  ${key} ${Number.isInteger(n) ? n : n.toFixed(2)}`)
		.join('');
	console.log(
		`${figure.label.padEnd(58)} median ${value(s.median)} min ${value(s.min)}${against}${extra}`,
	);
}
