/**
 * Send through n8n's engine against the sandbox with 20 ms latency, beside a raw client that
 * makes the same requests with fetch at the same concurrency, runs interleaved:
 * - personalised items, one request each (1,000 and 5,000), Concurrent Requests 8;
 * - one message to 100,000 destinations, 1,000 per request (100 requests), concurrency 8 and 1.
 * Run alone: npx tsx benchmarks/send.ts [--quick]
 */
import type { INode } from 'n8n-workflow';

import { BULK_SMS, MANUAL_TRIGGER, outputOf, runWorkflow, SET_ITEMS } from '../test/engine/harness';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { median, printFigure, type Figure } from './figures';

const LATENCY_MS = 20;
const RUNS = 3;
const USER = { username: 'demo', password: 'demo-password' };

interface Request {
	destination: string;
	message: string;
}

const numberOf = (i: number) => `4477${String(i).padStart(8, '0')}`;

export async function figures(quick = false): Promise<Figure[]> {
	const result: Figure[] = [];
	for (const count of quick ? [1_000] : [1_000, 5_000]) {
		result.push(await personalised(count));
	}
	for (const concurrency of [8, 1]) result.push(await destinations100k(concurrency));
	return result;
}

/** One item per row, its own text: one request each. */
async function personalised(count: number): Promise<Figure> {
	const rows = Array.from({ length: count }, (_, i) => ({ to: numberOf(i), name: `n${i}` }));
	const requests = rows.map((row) => ({ destination: row.to, message: `Hi ${row.name}` }));
	const nodes = workflow(
		SET_ITEMS,
		{ items: JSON.stringify(rows) },
		{
			destinations: '={{ $json.to }}',
			message: '=Hi {{ $json.name }}',
			sendOptions: { concurrency: 8 },
		},
	);
	const figure = await compare(nodes, requests, 8, count);
	return {
		...figure,
		scenario: `send_items_${count}_latency20`,
		label: `Send, ${count.toLocaleString('en')} personalised items, 8 at once vs raw fetch, 8 at once`,
	};
}

/** One message to 100,000 numbers, 1,000 per request. */
async function destinations100k(concurrency: number): Promise<Figure> {
	const numbers = Array.from({ length: 100_000 }, (_, i) => numberOf(i));
	const requests: Request[] = [];
	for (let start = 0; start < numbers.length; start += 1_000) {
		requests.push({ destination: numbers.slice(start, start + 1_000).join(','), message: 'Hi' });
	}
	const nodes = workflow(
		undefined,
		{},
		{
			destinations: numbers.join('\n'),
			message: 'Hi',
			sendOptions: { concurrency },
		},
	);
	const figure = await compare(nodes, requests, concurrency, 100);
	return {
		...figure,
		scenario: concurrency === 8 ? 'send_100k_destinations' : 'send_100k_destinations_serial',
		label: `Send, 100,000 destinations in 100 requests, ${concurrency} at once vs raw fetch alike`,
	};
}

/** Node and raw client runs, interleaved after one warm-up of each, on a fresh sandbox. */
async function compare(
	nodes: INode[],
	requests: Request[],
	concurrency: number,
	expectedItems: number,
): Promise<Omit<Figure, 'scenario' | 'label'>> {
	const sandbox = await startSandbox({
		accounts: [{ ...USER, credits: 1e9 }],
		faults: { latencyMs: LATENCY_MS },
	});
	try {
		const measured: number[] = [];
		const baseline: number[] = [];
		for (let run = 0; run <= RUNS; run++) {
			const raw = await timed(() => rawClient(sandbox, requests, concurrency));
			const node = await timed(() => nodeRun(sandbox, nodes, expectedItems));
			if (run === 0) continue; // warm-up
			baseline.push(raw);
			measured.push(node);
		}
		return { measured, baseline };
	} finally {
		await sandbox.stop();
	}
}

async function timed(work: () => Promise<unknown>): Promise<number> {
	const start = process.hrtime.bigint();
	await work();
	return Number(process.hrtime.bigint() - start) / 1e6;
}

/** The floor: the same form posts with fetch, `concurrency` in flight, each answer read. */
async function rawClient(sandbox: Sandbox, requests: Request[], concurrency: number) {
	const authorization = `Basic ${Buffer.from(`${USER.username}:${USER.password}`).toString('base64')}`;
	let next = 0;
	const worker = async () => {
		while (next < requests.length) {
			const { destination, message } = requests[next++];
			const answer = await fetch(`${sandbox.baseUrl}/api/sms/send`, {
				method: 'POST',
				body: new URLSearchParams({ destination, message }),
				headers: { Authorization: authorization, Accept: 'application/json' },
			});
			const body = JSON.parse(await answer.text()) as { accepted?: boolean };
			if (!body.accepted) throw new Error('raw client: a send was not accepted');
		}
	};
	await Promise.all(Array.from({ length: concurrency }, worker));
}

async function nodeRun(sandbox: Sandbox, nodes: INode[], expectedItems: number): Promise<void> {
	const connections = Object.fromEntries(
		nodes
			.slice(1)
			.map((node, i) => [
				nodes[i].name,
				{ main: [[{ node: node.name, type: 'main' as const, index: 0 }]] },
			]),
	);
	const run = await runWorkflow({
		nodes,
		connections,
		credentials: { bulkSmsApi: { baseUrl: sandbox.baseUrl, ...USER, timeZone: 'UTC' } },
	});
	const output = outputOf(run, 'Send');
	const accepted = output.filter((item) => item.json.send_outcome === 'accepted').length;
	if (accepted !== expectedItems) {
		throw new Error(`node: ${accepted} of ${expectedItems} batches accepted`);
	}
}

function workflow(
	itemsType: string | undefined,
	itemsParameters: INode['parameters'],
	sendParameters: INode['parameters'],
): INode[] {
	const node = (name: string, type: string, parameters: INode['parameters'], x: number) => ({
		id: name,
		name,
		type,
		typeVersion: 1,
		position: [x, 0] as [number, number],
		parameters,
	});
	return [
		node('Start', MANUAL_TRIGGER, {}, 0),
		...(itemsType ? [node('Items', itemsType, itemsParameters, 200)] : []),
		node('Send', BULK_SMS, { operation: 'send', ...sendParameters }, 400),
	];
}

if (require.main === module) {
	void figures(process.argv.includes('--quick'))
		.then((all) => {
			for (const figure of all) printFigure(figure);
			const ratio = (f: Figure) => median(f.measured) / median(f.baseline ?? [1]);
			console.log(all.map((f) => `${f.scenario} ×${ratio(f).toFixed(2)}`).join('\n'));
		})
		.catch((error: unknown) => {
			console.error(error);
			process.exitCode = 1;
		});
}
