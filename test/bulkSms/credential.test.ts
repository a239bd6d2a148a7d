/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/** The credential's test, run the way n8n's credential tester runs it, against the sandbox. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { loadPackageCredentialType, testCredential } from '../engine/harness';
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
			message: 'Wrong username or password: the service refused them (HTTP 401)',
		});
	});

	it.each(['/api/sms', '/api/sms/', '/api'])(
		'says what the Base URL must be when it ends in %s (HTTP 404)',
		async (suffix) => {
			const result = await testCredential(
				'bulkSmsApi',
				data({ baseUrl: `${sandbox.baseUrl}${suffix}` }),
			);
			expect(result).toEqual({
				status: 'Error',
				message:
					'Nothing answers at the Base URL + /api/sms/send (HTTP 404): the Base URL must be the service address without /api/sms, e.g. https://sms.example.com',
			});
		},
	);

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
		[
			'error500',
			'The service failed (HTTP 500): the address answers, but the service had an error; test again later',
		],
		['error503', 'The service is unavailable (HTTP 503): test again later'],
		['error429', 'The service is rate limiting requests (HTTP 429): test again in a minute'],
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
		[
			'a 403',
			{ status: 403, reason: 'Forbidden' },
			'The service refused this account (HTTP 403): check the username and password, and that the account may send SMS',
		],
		[
			'a 405 (a web server that is not the service)',
			{ status: 405, reason: 'Method Not Allowed' },
			'The server at the Base URL does not take /api/sms/send (HTTP 405): it is not a Bulk SMS service, or the Base URL has an extra path',
		],
		[
			'a 502 from a gateway',
			{ status: 502, reason: 'Bad Gateway' },
			'A gateway before the service failed (HTTP 502): test again later, or ask your provider',
		],
		// A status the credential has no rule for keeps n8n's own wording.
		['a 418 without a reason phrase', { status: 418 }, 'Received HTTP status code: 418'],
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
	// n8n lets a credential word HTTP answers only: without a response, its tester shows the
	// error's own code or message (docs/decisions.md, "Credential test messages").
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

describe('Bulk SMS credential fields', () => {
	// An installed package has no sandbox: a new credential must not point at one.
	it('starts with an empty Base URL and no developer address or command in any help text', () => {
		const type = loadPackageCredentialType('bulkSmsApi');
		const baseUrl = type?.properties.find((property) => property.name === 'baseUrl');
		expect(baseUrl).toMatchObject({ default: '', placeholder: 'https://sms.example.com' });
		const texts = JSON.stringify(type?.properties);
		expect(texts).not.toMatch(/127\.0\.0\.1|localhost|sandbox|npm run/i);
	});
});

describe('Bulk SMS credential authentication', () => {
	// As n8n's `generic` form `={{$credentials.username}}` gave them: the field as text, '' for none.
	it.each([
		[
			{ username: 'demo', password: 'pä ss:wörd' },
			{ username: 'demo', password: 'pä ss:wörd' },
		],
		[
			{ username: 'demo', password: '' },
			{ username: 'demo', password: '' },
		],
		[{ username: 'demo' }, { username: 'demo', password: '' }],
		[
			{ username: 12345, password: 0 },
			{ username: '12345', password: '' },
		],
	])('puts HTTP Basic from %j on the request as %j', async (credentials, auth) => {
		const { authenticate } = loadPackageCredentialType('bulkSmsApi') ?? {};
		if (typeof authenticate !== 'function') throw new Error('authenticate is not a function');
		const request = await authenticate(credentials, { url: '/api/sms/send', headers: {} });
		expect(request).toEqual({ url: '/api/sms/send', headers: {}, auth });
	});
});
