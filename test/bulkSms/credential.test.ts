/** The credential's test, run the way n8n's credential tester runs it, against the sandbox. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { testCredential } from '../engine/harness';
import { startSandbox, type Sandbox } from '../../sandbox/server';

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
		const closed = await freePort();
		const result = await testCredential(
			'bulkSmsApi',
			data({ baseUrl: `http://127.0.0.1:${closed}` }),
		);
		expect(result).toEqual({
			status: 'Error',
			message: expect.stringMatching(/ECONNREFUSED|refused/),
		});
	});
});

describe('Bulk SMS credential test against other servers', () => {
	let server: Server;
	let reply: { status: number; reason?: string };
	const seen: string[] = [];
	beforeAll(async () => {
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
		// n8n's tester shows the status text; a 5xx is no rule of the credential's.
		['a 500', { status: 500, reason: 'Internal Server Error' }, 'Internal Server Error'],
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

/** A port that was free a moment ago: listen, note it, close. */
async function freePort(): Promise<number> {
	const server: Server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return port;
}
