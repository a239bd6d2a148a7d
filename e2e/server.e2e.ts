/**
 * The package inside `n8n start`, as a user meets it: (a) the node types n8n lists,
 * (c) the polling trigger activated and its executions, (d) the editor in Chromium.
 * One server for the three, because each start costs 15-40 s and 0.5-0.75 GB.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import {
	inspectCanvas,
	launchBrowser,
	loginThroughForm,
	newPage,
	openNodePanel,
	openWorkflow,
} from '../scripts/n8n/browser';
import type { JsonObject, N8nServer } from '../scripts/n8n/runtime';
import {
	CREDENTIAL_TYPE,
	SEND_NODE_NAME,
	SEND_NODE_TYPE,
	TRIGGER_NODE_NAME,
	TRIGGER_NODE_TYPE,
	sendWorkflow,
	triggerWorkflow,
} from '../scripts/n8n/workflows';
import { outputItems, startHarness, type Harness } from './harness';

const SEND_ID = 'e2eSendWf00002';
const TRIGGER_ID = 'e2eTriggerWf01';
const SCREENSHOTS = process.env.BULKSMS_E2E_SCREENSHOTS || path.join(__dirname, 'artifacts');

let harness: Harness;
let server: N8nServer;
let watchedBatchId: string;

beforeAll(async () => {
	harness = await startHarness();
	await harness.n8n.importWorkflow(sendWorkflow(SEND_ID));
	// The trigger watches a batch that exists: send one first, headless, before the server starts.
	const sent = outputItems(await harness.n8n.executeWorkflow(SEND_ID));
	watchedBatchId = String(sent[0].batch_id);
	// Every status change, and what is there at the first poll, so that both polls emit.
	const watch = { emit: 'changes', emitExisting: true };
	await harness.n8n.importWorkflow(triggerWorkflow(TRIGGER_ID, [watchedBatchId], watch));
	server = await harness.n8n.startServer();
	await server.setupOwner();
	await server.createApiKey();
}, 300_000);

afterAll(() => harness?.stop());

describe('(a) node types n8n loaded', () => {
	test('lists both nodes under the package name and the credential', async () => {
		const nodeNames = (await server.nodeTypes()).map((type) => type.name);
		expect(nodeNames).toEqual(expect.arrayContaining([SEND_NODE_TYPE, TRIGGER_NODE_TYPE]));

		const credentialNames = (await server.credentialTypes()).map((type) => type.name);
		expect(credentialNames).toContain(CREDENTIAL_TYPE);
	});

	test('says which package each node came from', async () => {
		const ours = (await server.nodeTypes()).filter((type) =>
			String(type.name).startsWith(`${harness.installed.name}.`),
		);
		for (const type of ours)
			expect(type.communityNodePackageVersion).toBe(harness.installed.version);
	});
});

describe('(c) polling trigger under n8n start', () => {
	/** The items the trigger emitted in one execution listed by the public API. */
	function triggerItems(execution: JsonObject): JsonObject[] {
		const data = execution.data as {
			resultData: { runData: Record<string, Array<{ data: { main: JsonObject[][] } }>> };
		};
		const runs = data.resultData.runData[TRIGGER_NODE_NAME] ?? [];
		return (runs[0]?.data.main[0] ?? []).map((item) => item.json as JsonObject);
	}

	test('polls on activation; its execution is listed with the emitted reports', async () => {
		await server.activateWorkflow(TRIGGER_ID);
		const [first] = await server.waitForExecutions(TRIGGER_ID, (list) => list.length >= 1, 30_000);

		expect(first).toMatchObject({ mode: 'trigger', status: 'success', workflowId: TRIGGER_ID });
		const items = triggerItems(first);
		expect(items.length).toBeGreaterThan(0);
		for (const item of items) expect(item.batch_id).toBe(watchedBatchId);
	});

	test('emits the final statuses on the next poll after the sandbox delivered', async () => {
		const before = (await server.executions(TRIGGER_ID)).length;
		harness.sandbox.advance(60_000);
		// n8n's own schedule polls at most once a minute; reactivating polls at once.
		await server.pollNow(TRIGGER_ID);
		const [latest] = await server.waitForExecutions(
			TRIGGER_ID,
			(list) => list.length > before,
			30_000,
		);

		const items = triggerItems(latest);
		expect(items.length).toBeGreaterThan(0);
		for (const item of items)
			expect(item).toMatchObject({ batch_id: watchedBatchId, status: 'DELIVRD' });
	});
});

describe('(d) the editor in Chromium', () => {
	let browser: Browser;
	let page: Page;

	beforeAll(async () => {
		fs.mkdirSync(SCREENSHOTS, { recursive: true });
		browser = await launchBrowser();
		page = await newPage(browser);
		await loginThroughForm(page, server);
	}, 120_000);
	afterAll(() => browser?.close());

	test.each([
		[SEND_ID, SEND_NODE_NAME],
		[TRIGGER_ID, TRIGGER_NODE_NAME],
	])('workflow %s shows %s with its icon, no "?" and no error', async (workflowId, nodeName) => {
		await openWorkflow(page, server, workflowId);
		await page.screenshot({ path: path.join(SCREENSHOTS, `workflow-${workflowId}.png`) });

		const report = await inspectCanvas(page);
		const node = report.nodes.find((candidate) => candidate.name === nodeName);
		expect(node).toMatchObject({ unknown: false, iconMissing: false });
		expect(report.nodes.filter((candidate) => candidate.unknown)).toEqual([]);
		expect(report.errors).toEqual([]);

		await openNodePanel(page, nodeName);
		await page.screenshot({ path: path.join(SCREENSHOTS, `panel-${workflowId}.png`) });
		expect(await page.getByText('Install this node to use it').count()).toBe(0);
		await page.keyboard.press('Escape');
	});
});
