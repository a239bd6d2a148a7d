/* eslint-disable
	@n8n/community-nodes/no-hardcoded-secrets,
	@n8n/community-nodes/no-restricted-imports,
	no-console
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * A campaign's callbacks do not flood n8n's executions list (docs/following-delivery.md): 1,000
 * status changes called back by the sandbox at its own pace (one callback at a time, one report
 * each, as providers send them, a few sent twice) into examples/status-callbacks.json as shipped,
 * with a step of the user's after it that writes each report to a collector on 127.0.0.1 (as a
 * write-back to a sheet would). Every callback is acknowledged, the user's step sees every report
 * once, and n8n keeps no execution of the callbacks that succeeded.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { sendDirect } from '../sandbox/client';
import { CALLBACK_CREDENTIAL_ID, CALLBACK_CREDENTIAL_NAME } from '../scripts/n8n/callbacks';
import type { JsonObject } from '../scripts/n8n/runData';
import type { N8nServer } from '../scripts/n8n/server';
import { loadExample, STATUS_TRIGGER_NODE_TYPE } from '../scripts/n8n/workflows';
import { startHarness, type Harness } from './harness';
import { sleep, waitUntil } from './wait';

const WORKFLOW_ID = 'e2eCallbacksVolume';
const WEBHOOK_ID = '5d2b7e90-3c4a-4f1e-9b8d-6a0c1e2f3b47';
const SECRET = 'e2e-volume-4f8a2c6e1b9d3f7a5c0e2b4d6f8a1c3e';
/** 500 messages: an ENROUTE and a final status each. */
const MESSAGES = 500;
const REPORTS = 2 * MESSAGES;
/** Callbacks the sandbox sends twice, as at-least-once delivery does. */
const REPEATS = 5;
/** What the issue allows n8n to keep per 1,000 reports; the example should keep none. */
const KEPT_AT_MOST = 20;

/** Numbers whose last digit the sandbox makes final after a delay (0 to 7; see sandbox/numbers.ts). */
const NUMBERS = Array.from({ length: MESSAGES }, (_, i) => {
	const n = Math.floor(i / 8) * 10 + (i % 8);
	return `447731${String(n).padStart(6, '0')}`;
});

let harness: Harness;
let server: N8nServer;
let collector: Server;
const collected: JsonObject[] = [];

/** The shipped example, its settings unchanged, with the user's step posting each report. */
function exampleWithUserStep(collectorUrl: string): JsonObject {
	const example = loadExample('status-callbacks');
	const nodes = (example.nodes as JsonObject[]).map((node) =>
		node.type === STATUS_TRIGGER_NODE_TYPE ? { ...node, webhookId: WEBHOOK_ID } : node,
	);
	const write: JsonObject = {
		id: '5d2b7e90-0000-4000-8000-000000000003',
		name: 'Write Back',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: [480, 0],
		parameters: {
			method: 'POST',
			url: collectorUrl,
			sendBody: true,
			specifyBody: 'json',
			jsonBody: '={{ JSON.stringify($json) }}',
			options: {},
		},
	};
	const connections = example.connections as JsonObject;
	return {
		...example,
		id: WORKFLOW_ID,
		name: 'Bulk SMS: delivery callbacks, written back',
		nodes: [...nodes, write],
		connections: {
			...connections,
			'Delivery Report': { main: [[{ node: 'Write Back', type: 'main', index: 0 }]] },
		},
	};
}

async function startCollector(): Promise<string> {
	collector = createServer((req, res) => {
		let body = '';
		req.on('data', (chunk: Buffer) => (body += chunk.toString()));
		req.on('end', () => {
			collected.push(JSON.parse(body) as JsonObject);
			res.writeHead(204).end();
		});
	});
	await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
	return `http://127.0.0.1:${(collector.address() as AddressInfo).port}/reports`;
}

beforeAll(async () => {
	// The sandbox's own pace: its default callback settings.
	harness = await startHarness({ timeScale: 0 });
	await harness.n8n.importCredential({
		id: CALLBACK_CREDENTIAL_ID,
		name: CALLBACK_CREDENTIAL_NAME,
		type: 'bulkSmsCallbackApi',
		data: { secret: SECRET },
	});
	await harness.n8n.importWorkflow(exampleWithUserStep(await startCollector()));
	server = await harness.n8n.startServerAsOwner();
	await server.activateWorkflow(WORKFLOW_ID);
	const url = `${server.baseUrl}/webhook/${WEBHOOK_ID}/status?token=${SECRET}`;
	await server.waitForWebhook(url);
	await harness.sandbox.upsertAccount({ username: 'demo', callbackUrl: url });
}, 300_000);

afterAll(async () => {
	await harness?.stop();
	await new Promise((resolve) => collector?.close(resolve));
});

test('1,000 reports called back at the sandbox pace: each handled once, no execution kept', async () => {
	harness.sandbox.queueCallbackFaults(...Array<'duplicate'>(REPEATS).fill('duplicate'));
	const batchId = await sendDirect(harness.sandbox.baseUrl, NUMBERS, { message: 'Reminder' });
	await harness.sandbox.callbacksIdle();
	harness.sandbox.advance(60_000); // every message final
	await harness.sandbox.callbacksIdle();

	const { totals } = harness.sandbox.callbacks();
	expect(totals).toMatchObject({
		callbacks: REPORTS,
		acknowledged: REPORTS,
		duplicated: REPEATS,
		failed: 0,
		pending: 0,
	});
	// The user's step: every report once, and only this batch's.
	await waitUntil(() => collected.length >= REPORTS, 120_000).catch(() => undefined);
	await sleep(2000); // room for a report that should not come twice
	const seen = collected.map((report) => `${String(report.msisdn)} ${String(report.status)}`);
	expect(seen).toHaveLength(REPORTS);
	expect(new Set(seen).size).toBe(REPORTS);
	expect(new Set(collected.map((report) => report.batch_id))).toEqual(new Set([batchId]));
	expect(seen.filter((line) => line.endsWith(' ENROUTE'))).toHaveLength(MESSAGES);

	// What n8n's executions list holds of them: nothing, as no callback failed.
	const kept = await server.executionSummaries(WORKFLOW_ID);
	console.log(
		`${REPORTS} reports, ${totals.sent} callbacks posted: ${kept.length} executions kept`,
	);
	expect(kept.length).toBeLessThanOrEqual(KEPT_AT_MOST);
	expect(kept).toEqual([]);
}, 1_200_000);
