/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * examples/sheet-campaign.json, exactly as a user imports it: five contacts from a
 * sheet, two of them bad (a national number with no Default Country Code, and 12345), Send with
 * its default options, Get Delivery Status with its defaults and no Filter, and a write-back Set
 * node reading every row's outcome. Run with `n8n execute` against the sandbox (the demo's clock:
 * final 3 s after sending); then the same run in the editor, in Chromium: the write-back node's
 * Table view (BULKSMS_E2E_DOCS=1 puts its screenshot in docs/, as server.e2e.ts does).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';

import {
	inspectCanvas,
	launchBrowser,
	loginThroughForm,
	newPage,
	screenshotTable,
	showTableOf,
} from '../scripts/n8n/browser';
import { REPO_ROOT } from '../scripts/n8n/package';
import { type JsonObject, nodeRuns } from '../scripts/n8n/runData';
import { DEMO_SANDBOX } from '../scripts/n8n/service';
import { loadExample, workflowId } from '../scripts/n8n/workflows';
import { startHarness, type Harness } from './harness';

const EXAMPLE = loadExample('sheet-campaign');

// The example's contacts, and what the sandbox does with the numbers it accepts.
const CONTACTS = [
	{ name: 'Alice', phone: '+44 7700 900120', msisdn: '447700900120', status: 'DELIVRD' },
	{ name: 'Bob', phone: '07700 900126', reason: /^"07700 900126": national format/ },
	{ name: 'Chloé', phone: '447700900125', msisdn: '447700900125', status: 'ACCEPTD' },
	{ name: 'Dan', phone: '12345', reason: /^"12345": too short/ },
	{ name: 'Emma', phone: '447700900127', msisdn: '447700900127', status: 'REJECTD' },
];
const OUTCOME: Record<string, string> = {
	DELIVRD: 'delivered',
	ACCEPTD: 'delivered',
	REJECTD: 'failed',
};

describe('n8n execute of examples/sheet-campaign.json', () => {
	let harness: Harness;
	let run: JsonObject;
	let sent: JsonObject[];
	let followed: JsonObject[];
	let written: JsonObject[];

	beforeAll(async () => {
		harness = await startHarness(DEMO_SANDBOX);
		await harness.n8n.importWorkflow(EXAMPLE);
		run = await harness.n8n.executeWorkflow(workflowId(EXAMPLE));
		[sent] = nodeRuns(run, 'Send SMS');
		[followed] = nodeRuns(run, 'Get Delivery Status');
		[written] = nodeRuns(run, 'Write Back');
	});
	afterAll(() => harness?.stop());

	test('the run succeeds: three rows sent, the two bad ones skipped naming their numbers', () => {
		expect(run).toMatchObject({ status: 'success', finished: true, mode: 'cli' });
		expect(sent.map((row) => row.send_outcome)).toEqual([
			'accepted',
			'skipped',
			'accepted',
			'skipped',
			'accepted',
		]);
		for (const [index, contact] of CONTACTS.entries()) {
			if (!contact.reason) continue;
			expect(sent[index]).toMatchObject({
				batch_id: null,
				skipped: [{ input: contact.phone, item: index }],
				reason: expect.stringMatching(contact.reason),
			});
		}
	});

	test('Get Delivery Status reads each sent row and passes the others through, no Filter', () => {
		expect(followed.map((row) => [row.msisdn, row.status, row.outcome, row.send_outcome])).toEqual(
			CONTACTS.map((contact) =>
				contact.msisdn
					? [contact.msisdn, contact.status, OUTCOME[contact.status], undefined]
					: [null, null, 'not sent', 'skipped'],
			),
		);
		for (const [index, row] of followed.entries()) {
			expect(row.batch_id).toBe(sent[index].batch_id);
		}
	});

	test('the write-back node reads every row: its own fields, what Send did, and the delivery', () => {
		expect(written).toEqual(
			CONTACTS.map((contact, index) => ({
				name: contact.name,
				phone: contact.phone,
				sent: contact.msisdn ? 'accepted' : 'skipped',
				status: contact.status ?? '',
				outcome: contact.status ? OUTCOME[contact.status] : 'not sent',
				reason: contact.reason ? expect.stringMatching(contact.reason) : '',
				batch_id: contact.msisdn ? sent[index].batch_id : '',
			})),
		);
	});

	test('the sandbox accepted the three good numbers once each, and nothing else', () => {
		const { batches, destinations } = harness.sandbox.received();
		expect(batches).toHaveLength(3);
		expect(destinations.map((d) => [d.msisdn, d.accepted]).sort()).toEqual(
			CONTACTS.filter((contact) => contact.msisdn)
				.map((contact) => [contact.msisdn, 1])
				.sort(),
		);
	});

	describe('in the editor', () => {
		const DOCS = process.env.BULKSMS_E2E_DOCS === '1';
		const ARTIFACTS = process.env.BULKSMS_E2E_SCREENSHOTS || path.join(__dirname, 'artifacts');
		let browser: Browser | undefined;
		let page: Page;
		let executionUrl: string;

		afterAll(() => browser?.close());

		test("the run's Table view of the write-back node shows every row's outcome", async () => {
			const server = await harness.n8n.startServer();
			await server.setupOwner();
			const [execution] = await server.executionSummaries(workflowId(EXAMPLE));
			browser = await launchBrowser();
			page = await newPage(browser, { width: 1600, height: 900 });
			await loginThroughForm(page, server);
			executionUrl = `${server.baseUrl}/workflow/${workflowId(EXAMPLE)}/executions/${String(execution.id)}`;
			const table = await showTableOf(page, executionUrl, 'Write Back');
			fs.mkdirSync(ARTIFACTS, { recursive: true });
			const file = DOCS
				? path.join(REPO_ROOT, 'docs', 'editor-sheet-campaign.png')
				: path.join(ARTIFACTS, 'sheet-campaign-table.png');
			await screenshotTable(page, file);

			expect(table.headers).toEqual([
				'name',
				'phone',
				'sent',
				'status',
				'outcome',
				'reason',
				'batch_id',
			]);
			// n8n draws an empty string as "empty".
			expect(table.rows).toEqual(
				CONTACTS.map((contact, index) => [
					contact.name,
					contact.phone,
					contact.msisdn ? 'accepted' : 'skipped',
					contact.status ?? 'empty',
					contact.status ? OUTCOME[contact.status] : 'not sent',
					contact.reason ? expect.stringMatching(contact.reason) : 'empty',
					contact.msisdn ? String(sent[index].batch_id) : 'empty',
				]),
			);
			expect((await inspectCanvas(page)).errors).toEqual([]);
		});

		test("the canvas counts the two bad rows on Send's second output, Needs Action", async () => {
			await page.goto(executionUrl);
			const handle = page.locator(
				'[data-test-id="canvas-node-output-handle"][data-node-name="Send SMS"][data-index="1"]',
			);
			// The label comes first, the count once the execution's data is read: wait for a count.
			await handle.filter({ hasText: /\d+ items?/ }).waitFor({ timeout: 60_000 });
			await page.screenshot({ path: path.join(ARTIFACTS, 'sheet-campaign-needs-action.png') });
			expect(await handle.innerText()).toMatch(/Needs Action[^]*2 items/);
		});
	});
});
