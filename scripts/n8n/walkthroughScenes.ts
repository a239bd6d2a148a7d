/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * The walkthrough's scenes (walkthrough.ts records them), in the order of the video: what a new
 * user does in n8n's editor (selectors of n8n 2.41.1), with a caption for each step. What the
 * video claims is checked on the way: one batch sent until the second send, each trigger's own
 * executions holding the reports, so a run that shows something else fails instead of lying.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import type { Locator, Page } from 'playwright-core';

import type { Sandbox } from '../../sandbox/server';
import { addFromAction, openNodeCreator } from './browser';
import { REPO_ROOT } from './package';
import { waitUntil } from './processes';
import { nodeRuns, type JsonObject } from './runData';
import type { N8nServer } from './server';
import type { Caption, Stage } from './stage';

const DESTINATIONS = '+44 7700 900120, 447700900125, 447700900126, 12345';
/** What the sandbox accepts of DESTINATIONS (12345 is too short to be sent). */
const SENT = 3;

/** What the scenes share: the stage, the running n8n and sandbox, and what earlier scenes made. */
export interface Walk {
	stage: Stage;
	page: Page;
	server: N8nServer;
	sandbox: Sandbox;
	/** e.g. `n8n-nodes-bulk-sms 0.1.0 in n8n 2.41.1` */
	product: string;
	/** the route of the workflow that sends, once the Send scene made it */
	sendWorkflow?: string;
}

async function opening({ stage, page, product }: Walk): Promise<void> {
	await stage.card({
		title: product,
		lines: [
			'Recorded from the real n8n editor by one command: npm run walkthrough.',
			'The package integrates one service, the Bulk SMS service (docs/interface.md). A sandbox on 127.0.0.1 that speaks its interface stands in for an account.',
			'It was installed from its npm tarball the way Settings → Community nodes installs a package.',
			'Shown: the credential and its test, Send SMS, Get Delivery Status, the polling Bulk SMS Trigger, and the Bulk SMS Status Trigger receiving callbacks.',
		],
	});
	await stage.pause(10);
	await stage.caption({
		title: 'Installed',
		text: 'A fresh n8n, signed in as its owner. Settings → Community nodes: n8n-nodes-bulk-sms and its three nodes',
	});
	await stage.point(page.getByText('n8n-nodes-bulk-sms', { exact: true }));
	await stage.pause(4);
}

async function credential(walk: Walk): Promise<void> {
	const { stage, page, sandbox } = walk;
	await navigate(walk, '/home/credentials');
	await stage.caption({
		title: 'Credential',
		text: "A Bulk SMS API credential holds the service's Base URL, username and password (HTTP Basic)",
	});
	await stage.click(page.getByRole('button', { name: 'Create credential' }).first());
	await stage.type(page.locator('[data-test-id="new-credential-type-select"] input'), 'Bulk SMS');
	await stage.click(page.getByRole('option', { name: 'Bulk SMS API', exact: true }));
	await stage.click(page.locator('[data-test-id="new-credential-type-button"]'));
	const field = (name: string) => page.locator(`[data-test-id="parameter-input-${name}"] input`);
	const save = page.locator('[data-test-id="credential-save-button"]');
	await stage.caption({
		title: 'Credential',
		text: "The sandbox's address as Base URL, its account demo, and a wrong password first",
	});
	await stage.type(field('baseUrl'), sandbox.baseUrl);
	await stage.type(field('username'), 'demo');
	await stage.type(field('password'), 'not-the-password');
	await stage.click(save);
	await page.getByText(/Couldn.t connect with these settings/).waitFor();
	await stage.click(page.getByText('More details'));
	await page.getByText(/Wrong username or password/).waitFor();
	await stage.caption({
		title: 'Test',
		text: 'Saving tests the credential: the service refused the password (HTTP 401), and the test says what to check',
	});
	await stage.pause(6);
	await stage.type(field('password'), 'demo-password');
	await stage.click(save);
	const connected = page.getByText('Connection tested successfully');
	await connected.waitFor();
	await stage.caption({
		title: 'Test',
		text: 'Right password: connected. The test posts a send with no destination and no message, which the service answers "not accepted": nothing sent, nothing charged',
	});
	await stage.pause(3);
	await stage.click(page.getByRole('button', { name: 'Retry' }));
	await connected.waitFor();
	await stage.pause(2);
	await page.keyboard.press('Escape');
	await page.locator('[data-test-id="editCredential-modal"]').waitFor({ state: 'hidden' });
}

async function send(walk: Walk): Promise<void> {
	const { stage, page, sandbox } = walk;
	await newWorkflowWith(
		walk,
		{ title: 'Send SMS', text: 'A new workflow: the node creator finds Bulk SMS by "SMS"' },
		{ search: 'SMS', node: 'Bulk SMS', action: 'Send SMS' },
	);
	await stage.caption({
		title: 'Send SMS',
		text: 'Numbers as people paste them, one of them not a phone number; the credential just made is chosen',
	});
	await stage.type(parameter(page, 'destinations'), DESTINATIONS);
	await stage.type(parameter(page, 'message'), 'Your order is ready for collection.');
	await stage.caption({ title: 'Send SMS', text: 'Execute step: one request, one batch' });
	await stage.click(page.locator('[data-test-id="node-execute-button"]'));
	await outputShows(page, 'batch_id');
	await stage.click(outputPanel(page).locator('[data-test-id="radio-button-json"]'));
	await stage.caption({
		title: 'Sent',
		text: 'Accepted, its batch_id as text with every digit (a JavaScript number would round it); 12345 skipped with its reason, and so not lost',
	});
	await stage.pause(7);
	expectBatches(sandbox, 1);
	walk.sendWorkflow = `/workflow/${workflowIdOf(page)}`;
	await closePanel(walk);
}

async function getStatus(walk: Walk): Promise<void> {
	const { stage, page, sandbox } = walk;
	await stage.caption({
		title: 'Get Delivery Status',
		text: 'The + after Send SMS adds the next step',
	});
	const after = page.locator('[data-test-id="canvas-handle-plus"]').first();
	await openNodeCreator(page, after, 'delivery status', stage);
	await addFromAction(page, 'Bulk SMS', 'Get Delivery Status', stage);
	await stage.caption({
		title: 'Get Delivery Status',
		text: 'Batch IDs is {{ $json.batch_id }} unless changed: the batch Send SMS returned',
	});
	await stage.pause(3);
	await untilFinal(sandbox);
	await stage.click(page.locator('[data-test-id="node-execute-button"]'));
	await outputShows(page, 'DELIVRD');
	expectBatches(sandbox, 1);
	await stage.caption({
		title: 'Delivered?',
		text: "Execute step ran this node on Send's output, and the sandbox still has one batch: one item per number, DELIVRD and ACCEPTD delivered, UNDELIV failed",
	});
	await stage.pause(7);
	await closePanel(walk);
	await stage.caption({
		title: 'The workflow',
		text: 'Manual trigger → Send SMS → Get Delivery Status, saved',
	});
	await stage.pause(2);
}

async function pollingTrigger(walk: Walk): Promise<void> {
	const { stage, page, server, sandbox } = walk;
	await newWorkflowWith(
		walk,
		{
			title: 'Bulk SMS Trigger',
			text: 'A workflow that starts when messages are delivered or fail: the polling trigger needs no public URL',
		},
		{ search: 'SMS', node: 'Bulk SMS', action: 'On final statuses (polls batches)' },
	);
	await stage.caption({
		title: 'Bulk SMS Trigger',
		text: 'Batch IDs: the batch just sent. Include Statuses Found at Start, since its reports are final already',
	});
	await stage.type(parameter(page, 'batchIds'), sandbox.received().batches[0].batch_id);
	await stage.click(page.locator('[data-test-id="parameter-input-emitExisting"]').first());
	await stage.caption({
		title: 'Fetch Test Event',
		text: 'One poll, as the editor asks for it; it changes nothing',
	});
	await stage.click(page.getByRole('button', { name: /Fetch Test Event/ }).first());
	await outputShows(page, 'DELIVRD');
	await stage.pause(4);
	await closePanel(walk);
	const workflow = workflowIdOf(page);
	await publish(
		walk,
		'Published: n8n polls once now, then every minute, and emits each report once',
	);
	await expectEmitted(server, workflow, 'Bulk SMS Trigger', SENT);
	await showExecution(walk, 'Bulk SMS Trigger', {
		title: 'It fired',
		text: "The activation poll started the workflow with the batch's three final reports",
	});
}

async function statusTrigger(walk: Walk): Promise<void> {
	const { stage, page, server } = walk;
	await newWorkflowWith(
		walk,
		{
			title: 'Bulk SMS Status Trigger',
			text: "Or be told: the Status Trigger receives the service's status callbacks at the workflow's URL",
		},
		{
			search: 'delivery status',
			node: 'Bulk SMS Status',
			action: 'On final statuses (callback URL)',
		},
	);
	await stage.caption({
		title: 'Secret',
		text: 'A callback must carry a secret, kept in a Bulk SMS Callback API credential, never in the workflow',
	});
	// With no credential of its type yet, n8n offers to create one at once.
	await stage.click(page.getByRole('button', { name: /Connect to Bulk SMS Callback/ }));
	const secret = randomBytes(16).toString('hex');
	await stage.type(page.locator('[data-test-id="parameter-input-secret"] input'), secret);
	await stage.click(page.locator('[data-test-id="credential-save-button"]'));
	await page.locator('[data-test-id="editCredential-modal"]').waitFor({ state: 'hidden' });
	await stage.click(page.locator('[title="Click to display webhook URLs"]'));
	await stage.click(page.getByText('Production URL', { exact: true }));
	const shown = page.getByText(/\/webhook\/[0-9a-f-]+\/status$/).first();
	const url = `${(await shown.innerText()).trim()}?token=${secret}`;
	await stage.caption({
		title: 'Production URL',
		text: 'The service is given this URL, followed by ?token= and the secret',
	});
	await stage.point(shown);
	await stage.pause(4);
	await closePanel(walk);
	const workflow = workflowIdOf(page);
	await publish(walk, 'Published: its Production URL now takes callbacks');
	await server.waitForWebhook(url.replace(/\?.*/, ''));
	await pointSandboxAt(walk, url);
	await navigate(walk, walk.sendWorkflow as string);
	// Send sends a text to a number once per campaign (docs/recovering-a-campaign.md): running
	// the same send again would send nothing, so the second send has a new text.
	await stage.caption({
		title: 'A second send',
		text: 'A new message to the same numbers (the same one would not go out twice)',
	});
	await stage.doubleClick(page.locator('[data-test-id="canvas-node"][data-node-name="Send SMS"]'));
	await stage.type(parameter(page, 'message'), 'Your order is on its way.');
	await closePanel(walk);
	await stage.caption({
		title: 'A second send',
		text: 'Execute workflow: the sandbox now calls back each status change of this batch',
		at: 'top',
	});
	await stage.click(page.locator('[data-test-id="execute-workflow-button"]'));
	await page.getByText('Workflow executed successfully').waitFor({ timeout: 60_000 });
	expectBatches(walk.sandbox, 2);
	await stage.pause(2);
	await expectEmitted(server, workflow, 'Bulk SMS Status Trigger', SENT);
	// A page load: after the router's moves, n8n's list of executions kept the last workflow's.
	// The card stays up while n8n loads (the overlay keeps it across the load).
	await stage.card({
		title: 'Called back',
		lines: ['The sandbox called back each status change of the batch at the Production URL.'],
	});
	await page.goto(`${server.baseUrl}/workflow/${workflow}`);
	await page.locator('[data-test-id="canvas-node"]').first().waitFor();
	await showExecution(walk, 'Bulk SMS Status Trigger', {
		title: 'Called back',
		text: 'Each final status the sandbox called back started the workflow, the report shaped as Get Delivery Status shapes it',
	});
}

async function closing({ stage, sandbox, product }: Walk): Promise<void> {
	const { batches } = sandbox.received();
	const sizes = batches.map((batch) => batch.messages.length);
	if (sizes.some((size) => size !== SENT))
		throw new Error(`batches of ${sizes.join(', ')} numbers`);
	await stage.card({
		title: 'Recorded by npm run walkthrough',
		lines: [
			product,
			`The sandbox took ${batches.length} batches of ${SENT} numbers, one per send; 12345 was never sent.`,
			'Seen: the credential test (a wrong password, then the right one), Send SMS, Get Delivery Status, the Bulk SMS Trigger polling, the Bulk SMS Status Trigger called back.',
			`Recorded on ${new Date().toISOString().slice(0, 10)}.`,
		],
	});
	await stage.pause(7);
}

export const SCENES: Array<[string, (walk: Walk) => Promise<void>]> = [
	['opening', opening],
	['credential', credential],
	['send', send],
	['get status', getStatus],
	['polling trigger', pollingTrigger],
	['status trigger', statusTrigger],
	['closing', closing],
];

// ---------------------------------------------------------------------------------------------
// The editor's parts the scenes use.

/**
 * Opens a page of the editor as its own links do, through n8n's router: a full page load would
 * fill the video with seconds of blank screen while n8n's scripts load again.
 */
async function navigate({ page, server }: Walk, route: string): Promise<void> {
	const routed = await page.evaluate((to) => {
		type Router = { push(to: string): Promise<unknown> };
		type Mounted = { __vue_app__?: { config: { globalProperties: { $router?: Router } } } };
		const app = (document.querySelector('#app') as Mounted | null)?.__vue_app__;
		const router = app?.config.globalProperties.$router;
		if (router) void router.push(to);
		return router !== undefined;
	}, route);
	if (!routed) await page.goto(`${server.baseUrl}${route}`);
	const landed = route.replace(/\/new$/, '');
	await page.waitForURL((url) => url.pathname.startsWith(landed));
}

/** A new workflow whose first node is `action` of `node`, found in the node creator by `search`. */
async function newWorkflowWith(
	walk: Walk,
	caption: Caption,
	step: { search: string; node: string; action: string },
): Promise<void> {
	const { stage, page } = walk;
	await navigate(walk, '/workflow/new');
	await stage.caption(caption);
	const firstStep = page.locator('[data-test-id="canvas-add-button"]').first();
	await openNodeCreator(page, firstStep, step.search, stage);
	await addFromAction(page, step.node, step.action, stage);
}

function parameter(page: Page, name: string): Locator {
	return page.locator(`[data-test-id="parameter-input-${name}"] textarea`).first();
}

function outputPanel(page: Page): Locator {
	return page.locator('[data-test-id="output-panel"]');
}

async function outputShows(page: Page, text: string): Promise<void> {
	await outputPanel(page).getByText(text).first().waitFor({ timeout: 60_000 });
}

async function closePanel({ stage, page }: Walk): Promise<void> {
	await stage.click(page.locator('[data-test-id="ndv-close-button"]'));
}

function workflowIdOf(page: Page): string {
	const id = /\/workflow\/([^/?#]+)/.exec(page.url())?.[1];
	if (!id || id === 'new') throw new Error(`the workflow was not saved: ${page.url()}`);
	return id;
}

async function publish({ stage, page }: Walk, text: string): Promise<void> {
	await stage.click(page.locator('[data-test-id="workflow-open-publish-modal-button"]'));
	await stage.click(page.locator('[data-test-id="workflow-publish-button"]'));
	const done = page.getByRole('button', { name: 'Got it' });
	await done.waitFor();
	await stage.caption({ title: 'Publish', text });
	await stage.pause(3);
	await stage.click(done);
}

/** The workflow's Executions tab, its newest execution, and the trigger's output in it. */
async function showExecution(walk: Walk, trigger: string, caption: Caption): Promise<void> {
	const { stage, page } = walk;
	await stage.caption({ title: 'Executions', text: "The workflow's executions, newest first" });
	await stage.click(page.locator('[data-test-id="radio-button-executions"]'));
	const newest = page.locator('[data-test-id^="execution-details-"]').first();
	await newest.waitFor({ timeout: 90_000 });
	await page.keyboard.press('Escape'); // n8n's production checklist opens over the list
	await stage.pause(1);
	await stage.click(newest);
	await stage.doubleClick(
		page.locator(`[data-test-id="canvas-node"][data-node-name="${trigger}"]`),
	);
	await outputShows(page, 'batch_id');
	await stage.caption(caption);
	await stage.pause(6);
	await closePanel(walk);
}

/**
 * The command a user runs, run as they run it, and shown as a terminal shows it. The sandbox of
 * the walkthrough is on a free port, which the command is then told.
 */
async function pointSandboxAt({ stage, sandbox }: Walk, url: string): Promise<void> {
	const args = ['--sandbox', sandbox.baseUrl, url];
	const npm = ['run', '--silent', 'sandbox:callback-url', '--', ...args];
	const { stdout } = await promisify(execFile)('npm', npm, { cwd: REPO_ROOT });
	await stage.card({
		title: 'In a terminal',
		terminal: true,
		lines: [
			`$ npm run sandbox:callback-url -- --sandbox ${sandbox.baseUrl} '${url}'`,
			stdout.trim(),
		],
	});
	await stage.pause(8);
}

// ---------------------------------------------------------------------------------------------
// What the video claims, checked.

function expectBatches(sandbox: Sandbox, count: number): void {
	const taken = sandbox.received().batches.length;
	if (taken !== count) throw new Error(`the sandbox holds ${taken} batches, ${count} expected`);
}

async function untilFinal(sandbox: Sandbox): Promise<void> {
	await waitUntil(
		() => sandbox.received().batches.every((batch) => batch.messages.every((m) => m.final_at)),
		60_000,
		'the batch reaching its final statuses',
	);
}

/** The trigger's own executions (published, not run by hand) emitted `count` final reports. */
async function expectEmitted(
	server: N8nServer,
	workflow: string,
	trigger: string,
	count: number,
): Promise<void> {
	let reports: JsonObject[] = [];
	const emitted = async () => {
		const executions = await server.executions(workflow);
		reports = executions
			// Fetch Test Event's run is listed too, as a manual one.
			.filter((execution) => execution.stoppedAt && execution.mode !== 'manual')
			.flatMap((execution) => nodeRuns(execution, trigger)[0] ?? []);
		return reports.length >= count;
	};
	await waitUntil(emitted, 60_000, `${trigger} emitting ${count} reports`).catch(() => undefined);
	if (reports.length !== count || reports.some((report) => report.final !== true)) {
		const seen = reports.map((report) => `${String(report.msisdn)} ${String(report.status)}`);
		throw new Error(
			`${trigger} emitted ${seen.join(', ') || 'nothing'}: ${count} final reports expected`,
		);
	}
}
