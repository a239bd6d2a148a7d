/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * `npm run editor` as a person runs it: the command itself, in its own process group, its printed
 * lines read as a person reads them. The example workflows it lists, the sheet campaign among
 * them, are in the running n8n on the credential it made; the `npm run sandbox:callback-url`
 * command it prints, filled in with the Production URL and secret of a Status Trigger the test
 * publishes itself (as a user would, beside the example's), makes the editor's sandbox call that
 * trigger back with the reports of the next send; Ctrl-C stops n8n and the sandbox.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';

import { sendDirect } from '../sandbox/client';
import { REPO_ROOT } from '../scripts/n8n/package';
import { captureOutput, killGroup, spawnGroup } from '../scripts/n8n/processes';
import { freePort } from '../scripts/ports';
import { type JsonObject, nodeRuns } from '../scripts/n8n/runData';
import { N8nServer } from '../scripts/n8n/server';
import {
	CREDENTIAL_ID,
	CREDENTIAL_TYPE,
	loadExample,
	STATUS_TRIGGER_NODE_TYPE,
	workflowId,
	type ExampleName,
} from '../scripts/n8n/workflows';
import { packageTarball } from './package-under-test';
import { sleep, waitUntil } from './wait';

const run = promisify(execFile);

const LISTED: ExampleName[] = ['send-and-track', 'watch-deliveries', 'sheet-campaign'];
const READY = 'Ctrl-C here stops n8n and the sandbox.';

let editor: ChildProcess;
let output = '';
let server: N8nServer;

/** The value printed after a label, e.g. `n8n editor: http://…`. */
function printed(pattern: RegExp): string {
	const found = pattern.exec(output);
	if (!found) throw new Error(`npm run editor did not print ${pattern}:\n${output}`);
	return found[1];
}

beforeAll(async () => {
	const args = ['--tarball', packageTarball(), '--port', String(await freePort())];
	// The sandbox on a free port: 8555 may be another run's, and the command must then name it.
	editor = spawnGroup('npm', ['run', '--silent', 'editor', '--', ...args, '--sandbox-port', '0'], {
		cwd: REPO_ROOT,
		env: process.env,
	});
	captureOutput(editor, (text) => (output += text));
	await waitUntil(() => output.includes(READY) || editor.exitCode !== null, 240_000);
	if (!output.includes(READY)) throw new Error(`npm run editor did not start:\n${output}`);
	server = N8nServer.connect(printed(/^n8n editor: (\S+)$/m));
	await server.login();
	await server.createApiKey('editor-e2e');
}, 300_000);

afterAll(async () => {
	if (editor) await killGroup(editor, 10_000);
});

test('lists the example workflows, the sheet campaign among them, each in n8n on the credential it made', async () => {
	const listed = [...output.matchAll(/^workflow: +\S+\/workflow\/(\S+) {2}\((.+)\)$/gm)];
	const examples = LISTED.map(loadExample);
	expect(listed.map(([, id, name]) => [id, name])).toEqual(
		examples.map((example) => [workflowId(example), String(example.name)]),
	);
	for (const example of examples) {
		const { data } = await server.request<{ data: JsonObject }>(
			'GET',
			`/rest/workflows/${workflowId(example)}`,
		);
		const shape = (workflow: JsonObject) =>
			(workflow.nodes as JsonObject[]).map(({ name, type, credentials }) => ({
				name,
				type,
				credentials,
			}));
		expect(shape(data)).toEqual(shape(example));
	}
	const { data: credentials } = await server.request<{ data: JsonObject[] }>(
		'GET',
		'/rest/credentials',
	);
	expect(credentials).toContainEqual(
		expect.objectContaining({ id: CREDENTIAL_ID, type: CREDENTIAL_TYPE }),
	);
});

describe("a Status Trigger of the user's own, reached by the command the editor prints", () => {
	const secret = randomBytes(24).toString('hex');
	const webhookId = randomUUID();
	let ownId: string;

	beforeAll(async () => {
		const credential = await server.request<JsonObject>('POST', '/api/v1/credentials', {
			auth: 'apiKey',
			body: { name: 'My callback secret', type: 'bulkSmsCallbackApi', data: { secret } },
		});
		const trigger = 'My Status Trigger';
		const workflow = await server.request<JsonObject>('POST', '/api/v1/workflows', {
			auth: 'apiKey',
			body: {
				name: 'My delivery reports',
				nodes: [
					{
						id: randomUUID(),
						name: trigger,
						type: STATUS_TRIGGER_NODE_TYPE,
						typeVersion: 1.1,
						position: [0, 0],
						webhookId,
						parameters: { emit: 'changes', options: {} },
						credentials: {
							bulkSmsCallbackApi: { id: String(credential.id), name: 'My callback secret' },
						},
					},
					{
						id: randomUUID(),
						name: 'Report',
						type: 'n8n-nodes-base.noOp',
						typeVersion: 1,
						position: [240, 0],
						parameters: {},
					},
				],
				connections: { [trigger]: { main: [[{ node: 'Report', type: 'main', index: 0 }]] } },
				settings: { executionOrder: 'v1' },
			},
		});
		ownId = String(workflow.id);
		await server.activateWorkflow(ownId);
		await server.waitForWebhook(`${server.baseUrl}/webhook/${webhookId}/status`);
	}, 120_000);

	/** `msisdn status` of every report the user's trigger emitted so far, and their batches. */
	async function emitted(): Promise<{ reports: string[]; batches: Set<unknown> }> {
		const executions = await server.executions(ownId);
		const items = executions
			.filter((execution) => execution.stoppedAt)
			.flatMap((execution) => nodeRuns(execution, 'My Status Trigger')[0]);
		return {
			reports: items.map((item) => `${String(item.msisdn)} ${String(item.status)}`).sort(),
			batches: new Set(items.map((item) => item.batch_id)),
		};
	}

	test('the printed command, with its URL filled in, points the sandbox at it', async () => {
		const command = printed(/^ +(npm run sandbox:callback-url -- .+)$/m)
			.replace('<webhook id>', webhookId)
			.replace('<secret>', secret);
		const { stdout } = await run('sh', ['-c', command], { cwd: REPO_ROOT });

		expect(stdout).toContain(
			`now calls back the batches demo sends next at\n  ${server.baseUrl}/webhook/${webhookId}/status?token=${secret}\n`,
		);
	});

	test("the next send's reports start its workflow, and none of the example's", async () => {
		const sandboxUrl = printed(/-> sandbox at (\S+) /);
		const example = workflowId(loadExample('status-callbacks'));
		const exampleBefore = (await server.executionSummaries(example)).length;
		const numbers = ['447700900001', '447700900006'];
		const batchId = await sendDirect(sandboxUrl, numbers);

		// Every Status Change: ENROUTE at once, then the final status 3 s later, for each number.
		const expected = [
			'447700900001 DELIVRD',
			'447700900001 ENROUTE',
			'447700900006 ENROUTE',
			'447700900006 UNDELIV',
		];
		let seen = await emitted();
		const complete = async () => (seen = await emitted()).reports.length >= expected.length;
		await waitUntil(complete, 60_000).catch(() => undefined); // the expectations say what came

		expect(seen.reports).toEqual(expected);
		expect(seen.batches).toEqual(new Set([batchId]));
		await sleep(2000); // room for an execution of the example that should not come
		expect(await server.executionSummaries(example)).toHaveLength(exampleBefore);
	});
});

test('Ctrl-C stops n8n and the sandbox', async () => {
	const sandboxUrl = printed(/-> sandbox at (\S+) /);
	process.kill(-(editor.pid as number), 'SIGINT');
	await waitUntil(() => editor.exitCode !== null || editor.signalCode !== null, 60_000);

	expect(output).toContain('stopping...');
	await expect(fetch(`${server.baseUrl}/healthz`)).rejects.toThrow();
	await expect(fetch(`${sandboxUrl}/_sandbox/accounts`)).rejects.toThrow();
});
