/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * `npm run sandbox:callback-url`: a running sandbox's callbacks pointed at another URL (a user's
 * own Bulk SMS Status Trigger), without restarting it; then a send is called back there.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { parseCallbackUrlArgs, setCallbackUrl } from '../callbackUrl';
import { sendDirect } from '../client';
import { startSandbox, type Sandbox } from '../server';

const run = promisify(execFile);

describe('parseCallbackUrlArgs', () => {
	it.each<[string, string[], NodeJS.ProcessEnv, object]>([
		[
			'a URL: the demo account of the sandbox on 8555',
			['http://127.0.0.1:5678/webhook/x/status?token=s'],
			{},
			{
				sandbox: 'http://127.0.0.1:8555',
				user: 'demo',
				url: 'http://127.0.0.1:5678/webhook/x/status?token=s',
			},
		],
		[
			'--off, another sandbox and account',
			['--off', '--sandbox', 'http://127.0.0.1:9000/', '--user', 'shop'],
			{},
			{ sandbox: 'http://127.0.0.1:9000', user: 'shop', url: null },
		],
		[
			'the sandbox from SANDBOX_URL',
			['--off'],
			{ SANDBOX_URL: 'http://127.0.0.1:9001' },
			{ sandbox: 'http://127.0.0.1:9001', user: 'demo', url: null },
		],
	])('%s', (_, argv, env, expected) => {
		expect(parseCallbackUrlArgs(argv, env)).toEqual(expected);
	});

	it.each([
		[[], 'give the callback URL, or --off'],
		[['--off', 'http://a.example/x'], 'give the callback URL, or --off'],
		[['http://a.example/x', 'http://b.example/y'], 'one URL only, got 2'],
	])('refuses %j', (argv, message) => {
		expect(() => parseCallbackUrlArgs(argv, {})).toThrow(message);
	});
});

describe('setCallbackUrl against a running sandbox', () => {
	let sandbox: Sandbox;
	let receiver: Server;
	let receiverUrl: string;
	const bodies: string[] = [];

	beforeAll(async () => {
		sandbox = await startSandbox({ finalAfterMs: 0 });
		receiver = createServer((req, res) => {
			let body = '';
			req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
			req.on('end', () => {
				bodies.push(`${req.url} ${body}`);
				res.end('{}');
			});
		});
		await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
		receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhook/own/status?token=my-secret`;
	});
	afterAll(async () => {
		await sandbox.stop();
		await new Promise((resolve) => receiver.close(resolve));
	});

	it("calls back the account's next send at the URL given, then stops when told", async () => {
		const said = await setCallbackUrl({ sandbox: sandbox.baseUrl, user: 'demo', url: receiverUrl });
		expect(said).toContain(`now calls back the batches demo sends next at\n  ${receiverUrl}\n`);

		const batchId = await sendDirect(sandbox.baseUrl, ['447700900001']);
		await sandbox.callbacksIdle();
		expect(bodies.length).toBeGreaterThan(0);
		for (const body of bodies) {
			expect(body).toMatch(/^\/webhook\/own\/status\?token=my-secret \{"reports":\[/);
			expect(body).toContain(`"batch_id":${batchId}`);
		}

		await setCallbackUrl({ sandbox: sandbox.baseUrl, user: 'demo', url: null });
		expect(sandbox.accounts()).toEqual([{ username: 'demo', credits: 999 }]);
	});

	it.each<[string, Partial<Parameters<typeof setCallbackUrl>[0]>, string]>([
		[
			'an account the sandbox does not have',
			{ user: 'dmeo' },
			'has no account "dmeo" (it has: demo)',
		],
		['a URL that is not one', { url: 'webhook/status' }, 'is not an absolute URL'],
		[
			'no sandbox at the address',
			{ sandbox: 'http://127.0.0.1:9' },
			'no sandbox answers at http://127.0.0.1:9: start one (npm run editor, or npm run sandbox), or give its address with --sandbox',
		],
	])('refuses %s, changing nothing', async (_, change, message) => {
		await expect(
			setCallbackUrl({ sandbox: sandbox.baseUrl, user: 'demo', url: receiverUrl, ...change }),
		).rejects.toThrow(message);
		expect(sandbox.accounts()[0].callback_url).toBeUndefined();
	});

	it('runs as npm run sandbox:callback-url runs it', async () => {
		const command = path.join(__dirname, '..', 'callbackUrl.ts');
		const tsx = path.join(__dirname, '..', '..', 'node_modules', '.bin', 'tsx');
		const { stdout } = await run(tsx, [command, '--sandbox', sandbox.baseUrl, receiverUrl]);
		expect(stdout).toContain(`The sandbox at ${sandbox.baseUrl} now calls back`);
		expect(sandbox.accounts()[0].callback_url).toBe(receiverUrl);
		await setCallbackUrl({ sandbox: sandbox.baseUrl, user: 'demo', url: null });
	});
});
