/* eslint-disable
	@n8n/community-nodes/no-dangerous-functions,
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * CPU time and peak memory of a running `n8n start` over one leg of a benchmark, read from Linux's
 * /proc: its main process, and its task runner (every process below main: n8n starts the runner
 * that executes Code nodes as its child). CPU is user + system time of all threads; the peak is
 * the resident set's high-water mark (VmHWM), reset at the start of the leg (clear_refs 5), so it
 * is the leg's own peak; a runner that ends during the leg is counted by a sampler instead.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

export interface ProcessFigures {
	/** CPU seconds over the leg. */
	main_cpu_s: number;
	runner_cpu_s: number;
	/** Peak resident set over the leg, MiB (the runner's: all its processes together). */
	main_peak_mib: number;
	runner_peak_mib: number;
	/** How far main's resident set rose over the leg from where it started (MiB). */
	main_rise_mib: number;
}

const TICKS_PER_SECOND =
	Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;
const SAMPLE_MS = 25;

/** Starts measuring the process and its descendants; `stop()` gives the leg's figures. */
export function meter(mainPid: number): { stop: () => ProcessFigures } {
	const startCpu = new Map<number, number>();
	const sampledPeak = new Map<number, number>();
	const startRss = status(mainPid, 'VmRSS') ?? 0;
	for (const pid of [mainPid, ...descendants(mainPid)]) {
		startCpu.set(pid, cpuTicks(pid) ?? 0);
		resetPeak(pid);
	}
	const sample = () => {
		for (const pid of [mainPid, ...descendants(mainPid)]) {
			const rss = status(pid, 'VmRSS');
			if (rss !== undefined) sampledPeak.set(pid, Math.max(sampledPeak.get(pid) ?? 0, rss));
		}
	};
	const sampler = setInterval(sample, SAMPLE_MS);
	return {
		stop: () => {
			clearInterval(sampler);
			sample();
			const figures = { cpu: { main: 0, runner: 0 }, peak: { main: 0, runner: 0 } };
			for (const pid of new Set([mainPid, ...descendants(mainPid), ...sampledPeak.keys()])) {
				const side = pid === mainPid ? 'main' : 'runner';
				const ticks = cpuTicks(pid);
				if (ticks !== undefined) figures.cpu[side] += ticks - (startCpu.get(pid) ?? 0);
				const peak = Math.max(status(pid, 'VmHWM') ?? 0, sampledPeak.get(pid) ?? 0);
				figures.peak[side] += peak;
			}
			return {
				main_cpu_s: figures.cpu.main / TICKS_PER_SECOND,
				runner_cpu_s: figures.cpu.runner / TICKS_PER_SECOND,
				main_peak_mib: figures.peak.main / 1024,
				runner_peak_mib: figures.peak.runner / 1024,
				main_rise_mib: (figures.peak.main - startRss) / 1024,
			};
		},
	};
}

/** Every process whose parent chain leads to `pid`. */
function descendants(pid: number): number[] {
	const parentOf = new Map<number, number>();
	for (const entry of readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		const fields = statFields(Number(entry));
		if (fields) parentOf.set(Number(entry), Number(fields[1]));
	}
	const found: number[] = [];
	for (const child of parentOf.keys()) {
		for (let up = parentOf.get(child); up !== undefined; up = parentOf.get(up)) {
			if (up === pid) {
				found.push(child);
				break;
			}
		}
	}
	return found;
}

/** The fields of /proc/<pid>/stat after the command name (state, ppid, …), or undefined once gone. */
function statFields(pid: number): string[] | undefined {
	try {
		const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
		return text.slice(text.lastIndexOf(')') + 2).split(' ');
	} catch {
		return undefined;
	}
}

/** utime + stime, in clock ticks. */
function cpuTicks(pid: number): number | undefined {
	const fields = statFields(pid);
	return fields && Number(fields[11]) + Number(fields[12]);
}

/** A /proc/<pid>/status field in kB (VmRSS, VmHWM), or undefined once the process is gone. */
function status(pid: number, field: string): number | undefined {
	try {
		const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(
			readFileSync(`/proc/${pid}/status`, 'utf8'),
		);
		return match ? Number(match[1]) : undefined;
	} catch {
		return undefined;
	}
}

/** Resets the process's peak resident set to its current size. */
function resetPeak(pid: number): void {
	try {
		writeFileSync(`/proc/${pid}/clear_refs`, '5');
	} catch {
		// gone already: nothing to measure
	}
}
