/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	@n8n/community-nodes/require-node-api-error
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * The benchmarks in the real product (product.ts, record.ts): one `n8n start` (n8n 2.41.1,
 * SQLite, its defaults, the packed package installed as users install it) with the workflows of
 * the scenarios imported and active, each started by a Webhook node that answers with the last
 * node's items once the run ends. A leg is one call of the production webhook against a fresh
 * sandbox with 20 ms latency: its wall time, the CPU and peak memory of n8n's main process and
 * of its task runner over it (processMeter.ts), how many requests the sandbox had in flight, and
 * how many ids in the answer are exactly the sandbox's. What a leg needs beforehand (a Send
 * node's record, say) is made by a scenario's setup, through runs from the editor: the workflow's
 * test webhook, which n8n runs in mode `manual`, as when a user clicks Execute workflow. A
 * scenario that is not legs in rounds (an interrupted campaign, record.ts) drives the same product
 * itself: a sandbox kept over several runs, `kill -9` of n8n and a restart on the same database.
 * BULKSMS_BENCH_TARBALL=<file.tgz> measures a package packed elsewhere (an earlier commit)
 * instead of this checkout.
 */
import { request } from 'node:http';
import * as path from 'node:path';

import { N8nInstance } from '../scripts/n8n/instance';
import { packRepo } from '../scripts/n8n/package';
import { waitUntil } from '../scripts/n8n/processes';
import { freePort } from '../scripts/ports';
import type { JsonObject } from '../scripts/n8n/runData';
import type { N8nServer, ServerOptions } from '../scripts/n8n/server';
import {
	credential,
	CREDENTIAL_ID,
	CREDENTIAL_NAME,
	SEND_NODE_TYPE,
} from '../scripts/n8n/workflows';
import { startSandbox, type InFlightView, type Sandbox } from '../sandbox/server';
import { inRounds, type Leg } from './figures';
import { meter, type ProcessFigures } from './processMeter';

const LATENCY_MS = 20;
/** The sandbox's account, which the Bulk SMS credential names. */
export const USER = { username: 'demo', password: 'demo-password' };
/** For workflows of n8n's own HTTP Request node (product.ts). */
export const BASIC_CREDENTIAL = { id: 'benchHttpBasic01', name: 'Bench HTTP Basic' };

/** A workflow per side: `node` and `n8n` in product.ts, Send with and without its record in record.ts. */
export type Side = string;

export interface Scenario {
	/** Key in the bench JSON. */
	key: string;
	label: string;
	/** The nodes after the Webhook, per side. */
	nodes: Record<Side, (baseUrl: string) => JsonObject[]>;
	/** Once, after n8n has started and before any leg (not timed). */
	setup?: (product: Product) => Promise<void>;
	/** Work on the fresh sandbox before each leg (not timed). */
	prepare?: (sandbox: Sandbox) => Promise<void>;
	/** How many ids in the answer are exactly the sandbox's, of how many. */
	check: (sandbox: Sandbox, answer: JsonObject[]) => { exact: number; total: number };
	/** Counted rounds, when a leg takes minutes (figures.ts's ROUNDS otherwise). */
	rounds?: number;
}

export interface LegResult extends ProcessFigures {
	ms: number;
	ids_exact: number;
	ids_total: number;
	in_flight_mean: number;
	in_flight_max: number;
}

/** n8n started with the package, the workflows of the scenarios imported and active. */
export interface Product {
	/** One leg: the production webhook called (with `body`, the Webhook node's `body`), measured. */
	run(scenario: string, side: Side, body?: JsonObject): Promise<LegResult>;
	/** Work against a fresh sandbox on the credential's port, kept until the work ends. */
	sandboxed<T>(work: (sandbox: Sandbox) => Promise<T>): Promise<T>;
	/**
	 * A run from the editor (mode `manual`), not measured, against the sandbox of `sandboxed`: the
	 * test webhook called with `body` (the Webhook node's `body`); what the last node answered.
	 */
	runInEditor(scenario: string, side: Side, body?: JsonObject): Promise<JsonObject[]>;
	/**
	 * `kill -9` of n8n and its task runner, as a crash or an out-of-memory kill does, then `n8n
	 * start` again on the same database, logged in, the production webhooks back; the running
	 * execution is lost to n8n.
	 */
	crashAndRestart(): Promise<void>;
	/** The running `n8n start` (another one after `crashAndRestart`). */
	readonly server: N8nServer;
	/** n8n's SQLite database file, to read what n8n shows nobody (a node's deduplication store). */
	readonly database: string;
	/** performance.now() when `n8n start` was spawned (where its CPU profile starts). */
	readonly startedAt: number;
	stop(): Promise<void>;
}

export async function startProduct(
	scenarios: readonly Scenario[],
	options: ServerOptions = {},
): Promise<Product> {
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
			scenarios.flatMap((scenario) =>
				Object.keys(scenario.nodes).map((side) => workflow(scenario, side, baseUrl)),
			),
		);
		const startedAt = performance.now();
		let server = await n8n.startServerAsOwner(options);
		for (const scenario of scenarios) {
			for (const side of Object.keys(scenario.nodes)) {
				await server.activateWorkflow(workflowIdOf(scenario.key, side));
				await server.waitForWebhook(webhookUrl(server, scenario, side));
			}
		}
		const scenarioOf = (key: string) => {
			const scenario = scenarios.find((candidate) => candidate.key === key);
			if (!scenario) throw new Error(`bench: no scenario ${key}`);
			return scenario;
		};
		/** Work against a fresh sandbox on the credential's port, stopped after. */
		const withSandbox = async <T>(work: (sandbox: Sandbox) => Promise<T>): Promise<T> => {
			sandbox = await startSandbox({
				port,
				accounts: [{ ...USER, credits: 1e12 }],
				faults: { latencyMs: LATENCY_MS },
			});
			try {
				return await work(sandbox);
			} finally {
				await sandbox.stop();
				sandbox = undefined;
			}
		};
		const product: Product = {
			run: async (key, side, body) => {
				const scenario = scenarioOf(key);
				return await withSandbox(async (fresh) => {
					await scenario.prepare?.(fresh);
					return await leg(server, scenario, side, fresh, body);
				});
			},
			sandboxed: withSandbox,
			runInEditor: async (key, side, body = {}) =>
				await editorRun(server, scenarioOf(key), side, body),
			crashAndRestart: async () => {
				await server.crash();
				server = await n8n.startServer(options);
				await server.login();
				await server.createApiKey('after-crash');
				for (const scenario of scenarios) {
					for (const side of Object.keys(scenario.nodes))
						await server.waitForWebhook(webhookUrl(server, scenario, side));
				}
			},
			get server() {
				return server;
			},
			database: path.join(n8n.userFolder, '.n8n', 'database.sqlite'),
			startedAt,
			stop: async () => {
				await sandbox?.stop();
				await n8n.stop();
			},
		};
		for (const scenario of scenarios) await scenario.setup?.(product);
		return product;
	} catch (error) {
		await sandbox?.stop();
		await n8n.stop();
		throw error;
	}
}

/** The scenarios to run: all, or those BENCH_ONLY names (keys, comma-separated). */
export function chosen<T extends { key: string }>(scenarios: readonly T[]): T[] {
	const only = process.env.BENCH_ONLY?.split(',');
	return scenarios.filter((scenario) => !only || only.includes(scenario.key));
}

/**
 * Every side of a scenario in rounds (figures.ts: a warm-up leg of each side, then the sides in
 * turn): per side, the counted legs' figures, round by round.
 */
export async function legsInRounds(
	product: Product,
	scenario: Scenario,
	rounds = scenario.rounds,
): Promise<Record<Side, LegResult[]>> {
	const results: Record<Side, LegResult[]> = {};
	const legs: Record<Side, Leg> = {};
	for (const side of Object.keys(scenario.nodes)) {
		results[side] = [];
		legs[side] = async () => {
			results[side].push(await product.run(scenario.key, side));
		};
	}
	await inRounds(legs, rounds);
	// The warm-up leg of each side is not counted.
	for (const side of Object.keys(results)) results[side].shift();
	return results;
}

async function leg(
	server: N8nServer,
	scenario: Scenario,
	side: Side,
	sandbox: Sandbox,
	body?: JsonObject,
): Promise<LegResult> {
	const url = webhookUrl(server, scenario, side);
	for (let attempt = 1; ; attempt++) {
		await databaseReady(server);
		const measuring = meter(server.pid as number);
		const start = performance.now();
		const { status, text } = await post(url, body);
		const ms = performance.now() - start;
		const figures = measuring.stop();
		// Under load n8n can miss its own database ping and refuse calls until the next one.
		if (status === 503 && text.includes('Database is not ready') && attempt < 5) continue;
		// The execution's error is in n8n's log: this n8n and its database go when the bench ends.
		if (status !== 200)
			throw new Error(
				`bench: ${scenario.key} (${side}) answered ${status}: ${text.slice(0, 500)}\n` +
					`n8n's log, its end:\n${server.log.slice(-4000)}`,
			);
		return { ms, ...figures, ...checked(scenario, sandbox, text) };
	}
}

/** The editor's Execute workflow on a Webhook-started workflow, then the call it waits for. */
async function editorRun(
	server: N8nServer,
	scenario: Scenario,
	side: Side,
	body: JsonObject,
): Promise<JsonObject[]> {
	await databaseReady(server);
	const listening = await server.request<{ data: { waitingForWebhook?: boolean } }>(
		'POST',
		`/rest/workflows/${workflowIdOf(scenario.key, side)}/run`,
		{ body: { triggerToStartFrom: { name: 'Webhook' } } },
	);
	if (!listening.data.waitingForWebhook)
		throw new Error(`bench: ${scenario.key} (${side}) did not wait for its test webhook`);
	const url = `${server.baseUrl}/webhook-test/${webhookPath(scenario, side)}`;
	const { status, text } = await post(url, body);
	if (status !== 200)
		throw new Error(
			`bench: ${scenario.key} (${side}) from the editor answered ${status}: ${text.slice(0, 500)}`,
		);
	return JSON.parse(text) as JsonObject[];
}

/**
 * A webhook call, answered when the run ends. Not fetch: its client gives up on an answer whose
 * headers take more than 5 minutes, and a 100,000-row campaign takes longer.
 */
async function post(url: string, body?: JsonObject): Promise<{ status: number; text: string }> {
	const payload = body === undefined ? '' : JSON.stringify(body);
	return await new Promise((resolve, reject) => {
		const call = request(url, { method: 'POST', headers: { 'content-type': 'application/json' } });
		call.on('error', reject);
		call.on('response', (response) => {
			const chunks: Buffer[] = [];
			response.on('data', (chunk: Buffer) => chunks.push(chunk));
			response.on('error', reject);
			response.on('end', () =>
				resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
			);
		});
		call.end(payload);
	});
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
	const ready = async () => (await server.fetch('GET', '/healthz/readiness', { auth: 'none' })).ok;
	await waitUntil(ready, 60_000, 'bench: n8n ready again');
}

/** Batch ids in the answer that are exactly those the sandbox gave, of how many it gave. */
export function batchIds(sandbox: Sandbox, answer: JsonObject[]): { exact: number; total: number } {
	const given = new Set(sandbox.received().batches.map((batch) => String(batch.batch_id)));
	const exact = answer.filter((item) => given.has(String(item.batch_id))).length;
	return { exact, total: given.size };
}

// The workflows.

/** The id of a scenario's workflow for a side, in n8n's database. */
export const workflowIdOf = (key: string, side: Side) =>
	`bench${key}${side}`.replace(/[^a-z0-9]/gi, '');

const webhookPath = (scenario: Scenario, side: Side) => `bench-${scenario.key}-${side}`;

function webhookUrl(server: N8nServer, scenario: Scenario, side: Side): string {
	return `${server.baseUrl}/webhook/${webhookPath(scenario, side)}`;
}

let nodeCount = 0;
export const nodeId = () => `5e1d0000-0000-4000-8000-${String(++nodeCount).padStart(12, '0')}`;

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
		id: workflowIdOf(scenario.key, side),
		name: `Bench: ${scenario.key} (${side})`,
		nodes,
		connections,
		active: false,
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

export function code(name: string, jsCode: string): JsonObject {
	return {
		id: nodeId(),
		name,
		type: 'n8n-nodes-base.code',
		typeVersion: 2,
		parameters: { jsCode },
	};
}

export const bulkSms = (name: string, parameters: JsonObject): JsonObject => ({
	id: nodeId(),
	name,
	type: SEND_NODE_TYPE,
	typeVersion: 1,
	parameters: { resource: 'sms', ...parameters },
	credentials: { bulkSmsApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
});

export const send = (parameters: JsonObject) =>
	bulkSms('Send SMS', { operation: 'send', sendOptions: {}, ...parameters });
