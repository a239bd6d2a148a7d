/** The credential's test, run the way n8n's credential tester runs it, against the sandbox. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { testCredential } from '../engine/harness';
import { startSandbox, type FaultKind, type Sandbox } from '../../sandbox/server';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => {
	await sandbox.stop();
});

const data = (overrides: Record<string, string> = {}) => ({
	baseUrl: `${sandbox.baseUrl}/`,
	username: 'demo',
	password: 'demo-password',
	timeZone: 'UTC',
	...overrides,
});

describe('Bulk SMS credential test', () => {
	it('succeeds with the right account, and sends nothing', async () => {
		await expect(testCredential('bulkSmsApi', data())).resolves.toMatchObject({ status: 'OK' });
		expect(sandbox.received().batches).toHaveLength(0);
		expect(sandbox.accounts()).toEqual([{ username: 'demo', credits: 1000 }]);
	});

	it('says the username or password is wrong on 401', async () => {
		await expect(testCredential('bulkSmsApi', data({ password: 'wrong' }))).resolves.toEqual({
			status: 'Error',
			message: 'Invalid username or password',
		});
	});

	it('fails when nothing listens at the address', async () => {
		const stopped = await startSandbox();
		await stopped.stop();
		const result = await testCredential('bulkSmsApi', data({ baseUrl: stopped.baseUrl }));
		expect(result).toEqual({
			status: 'Error',
			message: expect.stringMatching(/ECONNREFUSED|refused/),
		});
	});

	it.each<[FaultKind, string]>([
		// n8n's tester shows the status text; a 5xx or a 429 is no rule of the credential's.
		['error500', 'Internal Server Error'],
		['error503', 'Service Unavailable'],
		['error429', 'Too Many Requests'],
	])('fails on an injected %s, asking once', async (fault, message) => {
		const before = sandbox.requests().length;
		sandbox.queueFaults(fault);
		await expect(testCredential('bulkSmsApi', data())).resolves.toEqual({
			status: 'Error',
			message,
		});
		expect(sandbox.requests().slice(before)).toEqual([
			expect.objectContaining({ method: 'POST', path: '/api/sms/send', fault }),
		]);
	});
});

describe('Bulk SMS credential test against other servers', () => {
	let server: Server;
	let reply: { status: number; reason?: string };
	const seen: string[] = [];
	beforeAll(async () => {
		// Not the sandbox: it never answers 403, nor a status without its reason phrase.
		server = createServer((req, res) => {
			seen.push(`${req.method} ${req.url}`);
			res.writeHead(reply.status, reply.reason ?? '', { 'Content-Type': 'text/plain' }).end('no');
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	});
	afterAll(async () => {
		await new Promise<void>((resolve) => server.close(() => resolve()));
	});

	it.each([
		['a 403', { status: 403, reason: 'Forbidden' }, 'Invalid username or password'],
		['a 500 without a reason phrase', { status: 500 }, 'Received HTTP status code: 500'],
	])('fails on %s', async (_, answer, message) => {
		reply = answer;
		seen.length = 0;
		const port = (server.address() as AddressInfo).port;
		const result = await testCredential(
			'bulkSmsApi',
			data({ baseUrl: `http://127.0.0.1:${port}/` }),
		);
		expect(result).toEqual({ status: 'Error', message });
		expect(seen).toEqual(['POST /api/sms/send']);
	});
});

describe('Bulk SMS credential test with a Base URL that is not http(s)', () => {
	// Documents today's behaviour: the test sends nothing, but says only what axios or URL
	// parsing said, not that the Base URL must start with http(s):// as the node does.
	it.each([
		['sms.example.com', 'Invalid URL'],
		['ftp://example.com', 'ERR_BAD_REQUEST'],
	])('fails for "%s" with "%s"', async (baseUrl, message) => {
		await expect(testCredential('bulkSmsApi', data({ baseUrl }))).resolves.toEqual({
			status: 'Error',
			message,
		});
	});
});
