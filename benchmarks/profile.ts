/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	no-console
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * Where a combined send's time goes, through n8n's engine (the test kit), for `node --cpu-prof`:
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx benchmarks/profile.ts send [rows]
 *   npx tsx benchmarks/profile.ts top /tmp/prof/<file>.cpuprofile [count]
 *
 * and inside `n8n start` (n8n's own Node 24, CPU-profiled with NODE_OPTIONS when a folder is given):
 *
 *   npx tsx benchmarks/profile.ts n8n <scenario> <side> [legs] [profile folder]
 *   npx tsx benchmarks/profile.ts top <folder>/<file>.cpuprofile [count] [from ms] [to ms]
 *
 * `send` runs Manual Trigger → Set Items (`rows` items `{ number }`, default 100,000) → Send with
 * Destinations `={{ $json.number }}`, one message and Combine All Items Into One Batch, against the
 * sandbox with 20 ms latency, twice (the first warms up), and prints the second run's time. `top`
 * prints the functions with the most self time in a profile, with their file, and the share of
 * the package's own code (nodes/, credentials/); from/to keep the samples of that window (ms
 * after the profile started: `n8n` prints when its legs ran, so that n8n's start is left out).
 * `n8n` starts the product as benchmarks/n8nStart.ts does, with one scenario of product.ts or
 * record.ts (each leg sized as that scenario says), and runs one side's leg (default 3
 * times; `all` runs every side of every scenario of product.ts), printing each leg's figures.
 */
import { readFileSync } from 'node:fs';

import { outputOf, runWorkflow } from '../test/engine/harness';
import { credentialsFor, items, line, send, trigger } from '../test/bulkSms/workflow';
import { startSandbox } from '../sandbox/server';
import { startProduct, type Side } from './n8nStart';
import { SCENARIOS as PRODUCT } from './product';
import { SCENARIOS as RECORD } from './record';

async function profileSend(rows: number): Promise<void> {
	const sandbox = await startSandbox({
		accounts: [{ username: 'demo', password: 'demo-password', credits: 1e9 }],
		faults: { latencyMs: 20 },
	});
	try {
		const list = Array.from({ length: rows }, (_, i) => ({
			number: `4477009${String(i).padStart(5, '0')}`,
		}));
		const flow = line(
			trigger(),
			items(list),
			send({
				destinations: '={{ $json.number }}',
				message: 'Hi',
				sendOptions: { combineItems: true },
			}),
		);
		for (const pass of ['warm-up', 'measured']) {
			const start = performance.now();
			const run = await runWorkflow({ ...flow, credentials: credentialsFor(sandbox) });
			const batches = outputOf(run, 'Send');
			const sent = batches.reduce((sum, batch) => sum + Number(batch.json.requested), 0);
			const ms = performance.now() - start;
			console.log(
				`${pass}: ${rows} rows, ${sent} numbers in ${batches.length} batches, ${ms.toFixed(0)} ms`,
			);
		}
	} finally {
		await sandbox.stop();
	}
}

interface ProfileNode {
	id: number;
	callFrame: { functionName: string; url: string; lineNumber: number };
	hitCount?: number;
}

interface Profile {
	nodes: ProfileNode[];
	samples: number[];
	timeDeltas: number[];
}

/** `all` runs every leg of every scenario of product.ts. */
async function profileN8n(scenario: string, side: Side, legs: number, folder?: string) {
	const env = folder ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${folder}` } : undefined;
	const scenarios =
		scenario === 'all' ? PRODUCT : [...PRODUCT, ...RECORD].filter(({ key }) => key === scenario);
	const product = await startProduct(scenarios, { env });
	const runs = scenarios.flatMap(({ key, nodes }) =>
		Object.keys(nodes)
			.filter((which) => scenario === 'all' || which === side)
			.map((which): [string, Side] => [key, which]),
	);
	try {
		const from = performance.now() - product.startedAt;
		for (const [key, which] of runs) {
			for (let i = 0; i < legs; i++) {
				console.log(key, which, JSON.stringify(await product.run(key, which)));
			}
		}
		const to = performance.now() - product.startedAt;
		console.log(`legs ran ${from.toFixed(0)}–${to.toFixed(0)} ms after n8n was started`);
	} finally {
		await product.stop();
	}
}

/** Self time per function (name, file, line), from the samples and their time deltas. */
function top(file: string, count: number, from = 0, to = Infinity): void {
	const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
	const byId = new Map(profile.nodes.map((node) => [node.id, node]));
	const self = new Map<string, number>();
	let total = 0;
	let ours = 0;
	let at = 0;
	profile.samples.forEach((id, i) => {
		const node = byId.get(id);
		const delta = profile.timeDeltas[i] / 1000;
		at += delta;
		if (!node || at < from || at > to) return;
		const { functionName, url, lineNumber } = node.callFrame;
		const key = `${functionName || '(anonymous)'}  ${shortUrl(url)}:${lineNumber + 1}`;
		self.set(key, (self.get(key) ?? 0) + delta);
		total += delta;
		if (isPackageCode(url)) ours += delta;
	});
	const idle = [...self.entries()].find(([key]) => key.startsWith('(idle)'))?.[1] ?? 0;
	console.log(
		`total ${total.toFixed(0)} ms, idle ${idle.toFixed(0)} ms, package code ${ours.toFixed(0)} ms`,
	);
	for (const [key, ms] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, count)) {
		console.log(`${ms.toFixed(0).padStart(7)} ms  ${key}`);
	}
}

/** The package's own code: its sources (the engine kit) or its bundle installed in n8n. */
function isPackageCode(url: string): boolean {
	if (url.includes('/n8n-nodes-bulk-sms/dist/')) return true;
	return /\/(nodes|credentials)\//.test(url) && !url.includes('node_modules');
}

function shortUrl(url: string): string {
	const modules = url.lastIndexOf('node_modules/');
	if (modules >= 0) return url.slice(modules + 'node_modules/'.length);
	const repo = url.indexOf('/benchmarks/') >= 0 ? url.indexOf('/benchmarks/') : -1;
	for (const folder of ['/nodes/', '/credentials/', '/sandbox/', '/test/', '/benchmarks/']) {
		const at = url.indexOf(folder);
		if (at >= 0) return url.slice(at + 1);
	}
	return repo >= 0 ? url.slice(repo + 1) : url.replace(/^file:\/\//, '');
}

const [command, argument, ...rest] = process.argv.slice(2);
if (command === 'send') {
	void profileSend(Number(argument) || 100_000);
} else if (command === 'n8n' && argument) {
	void profileN8n(argument, rest[0] || 'node', Number(rest[1]) || 3, rest[2]);
} else if (command === 'top' && argument) {
	top(argument, Number(rest[0]) || 25, Number(rest[1]) || 0, Number(rest[2]) || Infinity);
} else {
	console.error(
		'usage: benchmarks/profile.ts send [rows] | n8n SCENARIO SIDE [legs] [folder] | top FILE [count] [from] [to]',
	);
	process.exitCode = 2;
}
