/* eslint-disable
	@n8n/community-nodes/no-hardcoded-secrets,
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/require-node-api-error
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * The Bulk SMS node beside what a user would build from n8n's own nodes instead, in one real
 * `n8n start` (n8n 2.41.1, SQLite, its defaults, the packed package installed as users install
 * it), against the sandbox with 20 ms latency, on a fresh sandbox for every leg:
 * - 5,000 personalised rows, one request each: Send with its defaults (8 requests in flight) vs
 *   HTTP Request with its own (every request as soon as its item is read); a third leg, Send
 *   with Concurrent Requests 32 (its highest), shows what raising it buys;
 * - 100,000 rows, one message: Send with Combine All Items Into One Batch vs a Code node that
 *   joins 1,000 numbers per item, then HTTP Request;
 * - the same 100,000 numbers in one item: Send vs a Code node that splits them 1,000 per item,
 *   then HTTP Request;
 * - the delivery reports of a 20,000-number batch, one item per report: Get Status vs HTTP
 *   Request, then Split Out.
 * Each workflow starts from a Webhook node that answers with the last node's items once the run
 * ends; the rows come from a Code node, the same on both sides. A leg is one call: its wall time,
 * the CPU and peak memory of n8n's main process and of its task runner over it (processMeter.ts),
 * how many requests the sandbox had in flight, and whether the ids in the answer are the ones
 * the sandbox gave (batch_id, and gateway_session_id for reports). Legs run in rounds, the two
 * sides alternating (figures.ts). BULKSMS_BENCH_TARBALL=<file.tgz> measures a package packed
 * elsewhere (an earlier commit) instead of this checkout.
 */
import { N8nInstance } from '../scripts/n8n/instance';
import { packRepo } from '../scripts/n8n/package';
import { freePort, sleep } from '../scripts/n8n/processes';
import type { JsonObject } from '../scripts/n8n/runData';
import type { N8nServer, ServerOptions } from '../scripts/n8n/server';
import {
	credential,
	CREDENTIAL_ID,
	CREDENTIAL_NAME,
	SEND_NODE_TYPE,
} from '../scripts/n8n/workflows';
import { startSandbox, type InFlightView, type Sandbox } from '../sandbox/server';
import { inRounds, median, roundRatios, type Figure, type Timed } from './figures';
import { meter, type ProcessFigures } from './processMeter';

const LATENCY_MS = 20;
const USER = { username: 'demo', password: 'demo-password' };
const BASIC_CREDENTIAL = { id: 'benchHttpBasic01', name: 'Bench HTTP Basic' };
/** Send's highest Concurrent Requests, for the personalised scenario's third leg. */
const SEND_CONCURRENCY = 32;

/** `node` (the Bulk SMS node) and `n8n` (n8n's own nodes) in every scenario; others in some. */
export type Side = string;

interface Scenario {
	/** Key in the bench JSON. */
	key: string;
	label: string;
	/** The nodes after the Webhook, per side: `node`, `n8n`, and any other leg. */
	nodes: Record<Side, (baseUrl: string) => JsonObject[]>;
	/** Work on the fresh sandbox before the leg (not timed). */
	prepare?: (sandbox: Sandbox) => Promise<void>;
	/** How many ids in the answer are exactly the sandbox's, of how many. */
	check: (sandbox: Sandbox, answer: JsonObject[]) => { exact: number; total: number };
}

const numberOf = (i: number) => `4477009${String(i).padStart(5, '0')}`;
const NUMBER_JS = "'4477009' + String(i).padStart(5, '0')";

const PERSONAL = '=Hi {{ $json.name }}, your appointment is tomorrow at 10.';

const SCENARIOS: Scenario[] = [
	{
		key: 'n8n_personalised_5000',
		label: '5,000 personalised rows, one request each: Send vs HTTP Request, defaults',
		nodes: {
			node: () => [personalRows(), send({ destinations: '={{ $json.to }}', message: PERSONAL })],
			n8n: (baseUrl) => [personalRows(), httpSend(baseUrl, '={{ $json.to }}', PERSONAL)],
			node32: () => [
				personalRows(),
				send({
					destinations: '={{ $json.to }}',
					message: PERSONAL,
					sendOptions: { concurrency: SEND_CONCURRENCY },
				}),
			],
		},
		check: batchIds,
	},
	{
		key: 'n8n_combined_100k',
		label: '100,000 rows, one message: Send (combined) vs Code chunking + HTTP Request',
		nodes: {
			node: () => [
				rows100k(),
				send({
					destinations: '={{ $json.number }}',
					message: 'Hi',
					sendOptions: { combineItems: true },
				}),
			],
			n8n: (baseUrl) => [
				rows100k(),
				code(
					'Chunk',
					`const numbers = $input.all().map((item) => item.json.number);
const chunks = [];
for (let i = 0; i < numbers.length; i += 1000) chunks.push({ json: { destination: numbers.slice(i, i + 1000).join(',') } });
return chunks;`,
				),
				httpSend(baseUrl, '={{ $json.destination }}', 'Hi'),
			],
		},
		check: batchIds,
	},
	{
		key: 'n8n_one_item_100k',
		label: 'the same 100,000 numbers in one item: Send vs Code split + HTTP Request',
		nodes: {
			node: () => [oneItem100k(), send({ destinations: '={{ $json.numbers }}', message: 'Hi' })],
			n8n: (baseUrl) => [
				oneItem100k(),
				code(
					'Split',
					`const numbers = $input.first().json.numbers.split(',');
const chunks = [];
for (let i = 0; i < numbers.length; i += 1000) chunks.push({ json: { destination: numbers.slice(i, i + 1000).join(',') } });
return chunks;`,
				),
				httpSend(baseUrl, '={{ $json.destination }}', 'Hi'),
			],
		},
		check: batchIds,
	},
	{
		key: 'n8n_status_20000',
		label: 'status of a 20,000-number batch: Get Status vs HTTP Request + Split Out',
		nodes: {
			node: () => [batchItem(), getStatus()],
			n8n: (baseUrl) => [batchItem(), httpStatus(baseUrl), splitOut('reports')],
		},
		prepare: sendStatusBatch,
		check: reportIds,
	},
];

/** Every leg of every scenario: [scenario key, side]. */
export const ALL_LEGS: Array<[string, Side]> = SCENARIOS.flatMap((scenario) =>
	Object.keys(scenario.nodes).map((side): [string, Side] => [scenario.key, side]),
);

export interface LegResult extends ProcessFigures {
	ms: number;
	ids_exact: number;
	ids_total: number;
	in_flight_mean: number;
	in_flight_max: number;
}

/** n8n started with the package, the workflows of every scenario imported and active. */
export interface Product {
	run(scenario: string, side: Side): Promise<LegResult>;
	readonly server: N8nServer;
	/** performance.now() when `n8n start` was spawned (where its CPU profile starts). */
	readonly startedAt: number;
	stop(): Promise<void>;
}

export async function startProduct(options: ServerOptions = {}): Promise<Product> {
	const n8n = await N8nInstance.create();
	let sandbox: Sandbox | undefined;
	try {
		n8n.installPackage(process.env.BULKSMS_BENCH_TARBALL || packRepo({ quiet: true }));
		const port = await freePort();
		const baseUrl = `http://127.0.0.1:${port}`;
		await n8n.importCredentials([
			credential({ baseUrl, ...USER }),
			{
				...BASIC_CREDENTIAL,
				type: 'httpBasicAuth',
				data: { user: USER.username, password: USER.password },
			},
		]);
		await n8n.importWorkflow(
			SCENARIOS.flatMap((scenario) =>
				Object.keys(scenario.nodes).map((side) => workflow(scenario, side, baseUrl)),
			),
		);
		const startedAt = performance.now();
		const server = await n8n.startServerAsOwner(options);
		for (const scenario of SCENARIOS) {
			for (const side of Object.keys(scenario.nodes)) {
				await server.activateWorkflow(workflowIdOf(scenario, side));
				await server.waitForWebhook(webhookUrl(server, scenario, side));
			}
		}
		const run = async (key: string, side: Side): Promise<LegResult> => {
			const scenario = SCENARIOS.find((candidate) => candidate.key === key);
			if (!scenario) throw new Error(`bench: no scenario ${key}`);
			sandbox = await startSandbox({
				port,
				accounts: [{ ...USER, credits: 1e12 }],
				faults: { latencyMs: LATENCY_MS },
			});
			try {
				await scenario.prepare?.(sandbox);
				return await leg(server, scenario, side, sandbox);
			} finally {
				await sandbox.stop();
				sandbox = undefined;
			}
		};
		return {
			run,
			server,
			startedAt,
			stop: async () => {
				await sandbox?.stop();
				await n8n.stop();
			},
		};
	} catch (error) {
		await sandbox?.stop();
		await n8n.stop();
		throw error;
	}
}

async function leg(
	server: N8nServer,
	scenario: Scenario,
	side: Side,
	sandbox: Sandbox,
): Promise<LegResult> {
	const url = webhookUrl(server, scenario, side);
	for (let attempt = 1; ; attempt++) {
		await databaseReady(server);
		const measuring = meter(server.pid as number);
		const start = performance.now();
		const response = await fetch(url, { method: 'POST' });
		const text = await response.text();
		const ms = performance.now() - start;
		const figures = measuring.stop();
		// Under load n8n can miss its own database ping and refuse calls until the next one.
		if (response.status === 503 && text.includes('Database is not ready') && attempt < 5) continue;
		if (!response.ok)
			throw new Error(
				`bench: ${scenario.key} (${side}) answered ${response.status}: ${text.slice(0, 500)}`,
			);
		return { ms, ...figures, ...checked(scenario, sandbox, text) };
	}
}

function checked(scenario: Scenario, sandbox: Sandbox, answer: string) {
	const { exact, total } = scenario.check(sandbox, JSON.parse(answer) as JsonObject[]);
	const inFlight: InFlightView = sandbox.inFlight();
	return {
		ids_exact: exact,
		ids_total: total,
		in_flight_mean: inFlight.mean,
		in_flight_max: inFlight.max,
	};
}

/** n8n answers /healthz/readiness with 200 once its database answers again. */
async function databaseReady(server: N8nServer): Promise<void> {
	for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(250)) {
		if ((await server.fetch('GET', '/healthz/readiness', { auth: 'none' })).ok) return;
	}
	throw new Error('bench: n8n stayed not ready for a minute');
}

/** `npm run bench -- --only product`: every scenario in rounds, in one n8n. */
export async function figures(): Promise<Figure[]> {
	const product = await startProduct();
	try {
		const result: Figure[] = [];
		for (const scenario of SCENARIOS) {
			const results: Record<Side, LegResult[]> = {};
			const legs: Record<Side, () => Promise<number>> = {};
			for (const side of Object.keys(scenario.nodes)) {
				results[side] = [];
				legs[side] = async () => keep(results[side], await product.run(scenario.key, side));
			}
			const timed = await inRounds(legs);
			result.push(figureOf(scenario, timed, results));
		}
		return result;
	} finally {
		await product.stop();
	}
}

/** Keeps a counted leg's figures (inRounds runs one warm-up leg of each side first: dropped). */
function keep(into: LegResult[], result: LegResult): number {
	into.push(result);
	return result.ms;
}

function figureOf(
	scenario: Scenario,
	timed: Record<Side, Timed>,
	results: Record<Side, LegResult[]>,
): Figure {
	// The warm-up leg of each side (inRounds runs it first) is not counted.
	const counted = (side: Side) => results[side].slice(1);
	const extra: Record<string, number> = {};
	for (const side of Object.keys(results)) {
		const of = (name: keyof LegResult) => median(counted(side).map((result) => result[name]));
		for (const name of [
			'main_cpu_s',
			'runner_cpu_s',
			'main_peak_mib',
			'main_rise_mib',
			'runner_peak_mib',
			'in_flight_mean',
			'in_flight_max',
		] as const)
			extra[`${side}_${name}`] = of(name);
		extra[`${side}_ids_exact`] = Math.min(...counted(side).map((result) => result.ids_exact));
		extra[`${side}_ids_total`] = of('ids_total');
		if (side !== 'node' && side !== 'n8n') {
			extra[`${side}_median_ms`] = median(timed[side].figures);
			extra[`${side}_ratio_median`] = median(roundRatios(timed[side].figures, timed.n8n.figures));
		}
	}
	const cpu = (side: Side) =>
		counted(side).map((result) => result.main_cpu_s + result.runner_cpu_s);
	extra.cpu_ratio_median = median(roundRatios(cpu('node'), cpu('n8n')));
	const ourMain = counted('node').map((result) => result.main_peak_mib);
	const theirs = counted('n8n').map((result) => result.main_peak_mib + result.runner_peak_mib);
	extra.main_peak_vs_their_main_and_runner_median = median(roundRatios(ourMain, theirs));
	return {
		scenario: scenario.key,
		label: scenario.label,
		measured: timed.node.figures,
		baseline: timed.n8n.figures,
		extra,
	};
}

// The checks: ids in the answer against what the sandbox gave.

function batchIds(sandbox: Sandbox, answer: JsonObject[]): { exact: number; total: number } {
	const given = new Set(sandbox.received().batches.map((batch) => String(batch.batch_id)));
	const exact = answer.filter((item) => given.has(String(item.batch_id))).length;
	return { exact, total: given.size };
}

function reportIds(sandbox: Sandbox, answer: JsonObject[]): { exact: number; total: number } {
	const given = new Set(
		sandbox
			.received()
			.batches.flatMap((batch) =>
				batch.messages.map((message) => `${batch.batch_id} ${message.gateway_session_id}`),
			),
	);
	const exact = answer.filter((report) =>
		given.has(`${String(report.batch_id)} ${String(report.gateway_session_id)}`),
	).length;
	return { exact, total: given.size };
}

/** The 20,000-number batch whose reports are read, sent straight to the sandbox, then final. */
async function sendStatusBatch(sandbox: Sandbox): Promise<void> {
	const destination = Array.from({ length: 20_000 }, (_, i) => numberOf(i)).join(',');
	const answer = await fetch(`${sandbox.baseUrl}/api/sms/send`, {
		method: 'POST',
		body: new URLSearchParams({ destination, message: 'Hi' }),
		headers: {
			Authorization: `Basic ${Buffer.from(`${USER.username}:${USER.password}`).toString('base64')}`,
			Accept: 'application/json',
			// Not kept for the next leg's sandbox, which listens on the same port.
			Connection: 'close',
		},
	});
	if (!answer.ok) throw new Error(`bench: the status batch was not sent (${answer.status})`);
	sandbox.advance(60_000);
}

// The workflows.

const workflowIdOf = (scenario: Scenario, side: Side) =>
	`bench${scenario.key}${side}`.replace(/[^a-z0-9]/gi, '');

const webhookPath = (scenario: Scenario, side: Side) => `bench-${scenario.key}-${side}`;

function webhookUrl(server: N8nServer, scenario: Scenario, side: Side): string {
	return `${server.baseUrl}/webhook/${webhookPath(scenario, side)}`;
}

let nodeCount = 0;
const nodeId = () => `5e1d0000-0000-4000-8000-${String(++nodeCount).padStart(12, '0')}`;

function workflow(scenario: Scenario, side: Side, baseUrl: string): JsonObject {
	const webhook: JsonObject = {
		id: nodeId(),
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		webhookId: nodeId(),
		parameters: {
			httpMethod: 'POST',
			path: webhookPath(scenario, side),
			responseMode: 'lastNode',
			responseData: 'allEntries',
			options: {},
		},
	};
	const nodes = [webhook, ...scenario.nodes[side](baseUrl)].map(
		(node, index): JsonObject => ({ ...node, position: [index * 220, 0] }),
	);
	const connections: JsonObject = {};
	nodes.slice(1).forEach((next, index) => {
		connections[String(nodes[index].name)] = {
			main: [[{ node: String(next.name), type: 'main', index: 0 }]],
		};
	});
	return {
		id: workflowIdOf(scenario, side),
		name: `Bench: ${scenario.key} (${side})`,
		nodes,
		connections,
		active: false,
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

function code(name: string, jsCode: string): JsonObject {
	return {
		id: nodeId(),
		name,
		type: 'n8n-nodes-base.code',
		typeVersion: 2,
		parameters: { jsCode },
	};
}

const personalRows = () =>
	code(
		'Rows',
		`return Array.from({ length: 5000 }, (_, i) => ({ json: { to: ${NUMBER_JS}, name: 'Contact ' + i } }));`,
	);

const rows100k = () =>
	code(
		'Rows',
		`return Array.from({ length: 100000 }, (_, i) => ({ json: { number: ${NUMBER_JS} } }));`,
	);

const oneItem100k = () =>
	code(
		'Numbers',
		`return [{ json: { numbers: Array.from({ length: 100000 }, (_, i) => ${NUMBER_JS}).join(',') } }];`,
	);

/** The batch sendStatusBatch makes: the first a fresh sandbox gives. */
const batchItem = () => code('Batch', "return [{ json: { batch_id: '9007199254740993' } }];");

const bulkSms = (name: string, parameters: JsonObject): JsonObject => ({
	id: nodeId(),
	name,
	type: SEND_NODE_TYPE,
	typeVersion: 1,
	parameters: { resource: 'sms', ...parameters },
	credentials: { bulkSmsApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
});

const send = (parameters: JsonObject) =>
	bulkSms('Send SMS', { operation: 'send', sendOptions: {}, ...parameters });

const getStatus = () => bulkSms('Get Status', { operation: 'getStatus' });

/** HTTP Request as the n8n docs show it for a form post with Basic auth. */
function http(name: string, parameters: JsonObject): JsonObject {
	return {
		id: nodeId(),
		name,
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		parameters: {
			authentication: 'genericCredentialType',
			genericAuthType: 'httpBasicAuth',
			sendHeaders: true,
			headerParameters: { parameters: [{ name: 'Accept', value: 'application/json' }] },
			options: {},
			...parameters,
		},
		credentials: { httpBasicAuth: BASIC_CREDENTIAL },
	};
}

function httpSend(baseUrl: string, destination: string, message: string): JsonObject {
	return http('HTTP Request', {
		method: 'POST',
		url: `${baseUrl}/api/sms/send`,
		sendBody: true,
		contentType: 'form-urlencoded',
		bodyParameters: {
			parameters: [
				{ name: 'destination', value: destination },
				{ name: 'message', value: message },
			],
		},
	});
}

function httpStatus(baseUrl: string): JsonObject {
	return http('HTTP Request', {
		method: 'GET',
		url: `=${baseUrl}/api/sms/get_status?batch_id={{ $json.batch_id }}`,
	});
}

function splitOut(field: string): JsonObject {
	return {
		id: nodeId(),
		name: 'Split Out',
		type: 'n8n-nodes-base.splitOut',
		typeVersion: 1,
		parameters: { fieldToSplitOut: field, options: {} },
	};
}
