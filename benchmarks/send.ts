/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/node-usable-as-tool
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * Send through n8n's engine against the sandbox with 20 ms latency, beside a raw client that
 * makes the same requests with fetch at the same concurrency, runs interleaved:
 * - personalised items, one request each (1,000 and 5,000), Concurrent Requests 8;
 * - one message to 100,000 destinations, 1,000 per request (100 requests), concurrency 8 and 1.
 * For personalised items a third leg shows n8n's own floor: a node that does nothing but call
 * `httpRequestWithAuthentication` for each item, 8 at once (it opens a connection per request
 * and resolves the credential each time, which fetch does not).
 */
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { NodeConnectionTypes } from 'n8n-workflow';
import { outputOf, runWorkflow } from '../test/engine/harness';
import { items, line, send, trigger } from '../test/bulkSms/workflow';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { inRounds, median, roundRatios, type Figure } from './figures';

const LATENCY_MS = 20;
const USER = { username: 'demo', password: 'demo-password' };

interface Request {
	destination: string;
	message: string;
}

const FLOOR = 'bench.httpFloor';

/** Nodes and connections, as line() gives them. */
type Flow = ReturnType<typeof line>;

/** The least a node can do per item: one authenticated request through n8n's helper. */
class HttpFloor implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'HTTP floor',
		name: 'httpFloor',
		group: ['output'],
		version: 1,
		description: 'n8n helper requests only',
		defaults: { name: 'HTTP floor' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'bulkSmsApi', required: true }],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const { baseUrl } = await this.getCredentials('bulkSmsApi');
		const output: INodeExecutionData[] = new Array(items.length);
		let next = 0;
		const worker = async () => {
			while (next < items.length) {
				const index = next++;
				const { to, name } = items[index].json as { to: string; name: string };
				const answer = (await this.helpers.httpRequestWithAuthentication.call(this, 'bulkSmsApi', {
					method: 'POST',
					url: `${String(baseUrl)}/api/sms/send`,
					body: new URLSearchParams({ destination: to, message: `Hi ${name}` }).toString(),
					headers: {
						'Content-Type': 'application/x-www-form-urlencoded',
						Accept: 'application/json',
					},
					encoding: 'text',
					json: false,
					returnFullResponse: true,
				})) as { body: string };
				output[index] = { json: JSON.parse(answer.body), pairedItem: { item: index } };
			}
		};
		await Promise.all(Array.from({ length: 8 }, worker));
		return [output];
	}
}

const numberOf = (i: number) => `4477${String(i).padStart(8, '0')}`;

export async function figures(): Promise<Figure[]> {
	const result: Figure[] = [];
	for (const count of [1_000, 5_000]) {
		result.push(await personalised(count));
	}
	for (const concurrency of [8, 1]) result.push(await destinations100k(concurrency));
	return result;
}

/** One item per row, its own text: one request each. */
async function personalised(count: number): Promise<Figure> {
	const rows = Array.from({ length: count }, (_, i) => ({ to: numberOf(i), name: `n${i}` }));
	const requests = rows.map((row) => ({ destination: row.to, message: `Hi ${row.name}` }));
	const flow = line(
		trigger(),
		items(rows),
		send({
			destinations: '={{ $json.to }}',
			message: '=Hi {{ $json.name }}',
			sendOptions: { concurrency: 8 },
		}),
	);
	// The floor node takes the Send node's place and name.
	const floorFlow = line(trigger(), items(rows), { ...send({}), type: FLOOR, parameters: {} });
	const figure = await compare(flow, requests, 8, count, floorFlow);
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
	const flow = line(
		trigger(),
		send({ destinations: numbers.join('\n'), message: 'Hi', sendOptions: { concurrency } }),
	);
	const figure = await compare(flow, requests, concurrency, 100);
	return {
		...figure,
		scenario: concurrency === 8 ? 'send_100k_destinations' : 'send_100k_destinations_serial',
		label: `Send, 100,000 destinations in 100 requests, ${concurrency} at once vs raw fetch alike`,
	};
}

/**
 * Node and raw client (and the floor node) in rounds, each leg on a fresh sandbox, so that the
 * batches one leg left (100,000 messages a run) do not tax the next one's GC.
 */
async function compare(
	flow: Flow,
	requests: Request[],
	concurrency: number,
	expectedItems: number,
	floorFlow?: Flow,
): Promise<Omit<Figure, 'scenario' | 'label'>> {
	const legs = {
		raw: () => onFreshSandbox((sandbox) => rawClient(sandbox, requests, concurrency)),
		node: () => onFreshSandbox((sandbox) => nodeRun(sandbox, flow, expectedItems)),
	};
	if (!floorFlow) {
		const timed = await inRounds(legs);
		return { measured: timed.node.figures, baseline: timed.raw.figures };
	}
	const timed = await inRounds({
		...legs,
		floor: () => onFreshSandbox((sandbox) => nodeRun(sandbox, floorFlow, expectedItems)),
	});
	const extra = {
		n8n_helper_floor_median: median(timed.floor.figures),
		floor_ratio_median: median(roundRatios(timed.floor.figures, timed.raw.figures)),
		node_vs_floor_median: median(roundRatios(timed.node.figures, timed.floor.figures)),
	};
	return { measured: timed.node.figures, baseline: timed.raw.figures, extra };
}

/** Milliseconds the work took, on a sandbox of its own (its start and stop not counted). */
async function onFreshSandbox(work: (sandbox: Sandbox) => Promise<unknown>): Promise<number> {
	const sandbox = await startSandbox({
		accounts: [{ ...USER, credits: 1e9 }],
		faults: { latencyMs: LATENCY_MS },
	});
	try {
		const start = process.hrtime.bigint();
		await work(sandbox);
		return Number(process.hrtime.bigint() - start) / 1e6;
	} finally {
		await sandbox.stop();
	}
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

async function nodeRun(sandbox: Sandbox, flow: Flow, expectedItems: number): Promise<void> {
	const run = await runWorkflow({
		...flow,
		nodeTypes: { [FLOOR]: new HttpFloor() },
		credentials: { bulkSmsApi: { baseUrl: sandbox.baseUrl, ...USER, timeZone: 'UTC' } },
	});
	const output = outputOf(run, 'Send');
	const floor = flow.nodes.some((node) => node.type === FLOOR);
	const accepted = output.filter(
		(item) => item.json.send_outcome === 'accepted' || (floor && item.json.accepted),
	).length;
	if (accepted !== expectedItems) {
		throw new Error(`node: ${accepted} of ${expectedItems} batches accepted`);
	}
}
