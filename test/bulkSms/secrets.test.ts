/**
 * No run shows the account's password or its Basic token: not in the output, not in an error's
 * message, description, context or response excerpt, even when a gateway echoes them back.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IRun } from 'n8n-workflow';

import { errorOf, outputOf, runWorkflow } from '../engine/harness';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { credentialsFor, getStatus, line, send, trigger } from './workflow';

const USERNAME = 'alice';
// A slash and a quote, so that its URL-encoded and JSON-escaped forms differ from it.
const PASSWORD = 'pw-Secret/47"11';
const BASIC = Buffer.from(`${USERNAME}:${PASSWORD}`).toString('base64');
/** Each form the password can take in a run: JSON.stringify escapes the raw one as it does the quote. */
const FORMS = [BASIC, JSON.stringify(PASSWORD).slice(1, -1), encodeURIComponent(PASSWORD)];

let sandbox: Sandbox;
beforeEach(async () => {
	sandbox = await startSandbox({
		accounts: [{ username: USERNAME, password: PASSWORD, credits: 100 }],
	});
});
afterEach(async () => {
	await sandbox.stop();
});

const credentials = (baseUrl = sandbox.baseUrl) =>
	credentialsFor({ baseUrl } as Sandbox, { username: USERNAME, password: PASSWORD });

/** Manual Trigger → Send 'Hi' to one test number; under Continue On Fail if asked. */
const sendOne = (continueOnFail = false) =>
	line(
		trigger(),
		send(
			{ destinations: '447700900120', message: 'Hi' },
			continueOnFail ? { onError: 'continueRegularOutput' } : {},
		),
	);

/** The run as JSON, every error with its own fields, enumerable or not (stack, cause) too. */
function exposed(run: IRun): string {
	const seen = new WeakSet<object>();
	return JSON.stringify(run, (_key, value: unknown) => {
		if (typeof value !== 'object' || value === null) return value;
		if (seen.has(value)) return '[seen]';
		seen.add(value);
		if (!(value instanceof Error)) return value;
		const fields = value as unknown as Record<string, unknown>;
		return Object.fromEntries(Object.getOwnPropertyNames(value).map((k) => [k, fields[k]]));
	});
}

function expectNoSecrets(run: IRun): void {
	const text = exposed(run);
	for (const form of FORMS) expect(text).not.toContain(form);
}

/** Runs Send stopping on the error, then under Continue On Fail; checks both leak nothing. */
async function sendFailing(baseUrl?: string) {
	const failed = await runWorkflow({ ...sendOne(), credentials: credentials(baseUrl) });
	const continued = await runWorkflow({ ...sendOne(true), credentials: credentials(baseUrl) });
	expectNoSecrets(failed);
	expectNoSecrets(continued);
	return { error: errorOf(failed, 'Send'), item: outputOf(continued, 'Send')[0] };
}

describe('The password and the Basic token never reach a run', () => {
	it('in a successful Send and Get Status', async () => {
		const run = await runWorkflow({
			...line(
				trigger(),
				send({ destinations: '447700900120', message: 'Hi' }),
				getStatus({ batchId: '={{ $json.batch_id }}' }),
			),
			credentials: credentials(),
		});
		expect(outputOf(run, 'Get Status').map((item) => item.json.msisdn)).toEqual(['447700900120']);
		expectNoSecrets(run);
	});

	it('when the service answers 500 to a send', async () => {
		sandbox.queueFaults('error500', 'error500');
		const { error, item } = await sendFailing();
		expect(error?.message).toBe('The service failed (HTTP 500)');
		expect(item.json.error).toBe('The service failed (HTTP 500)');
	});

	it('when the service answers 401', async () => {
		// The node sends the distinctive password; the account now expects another.
		await sandbox.upsertAccount({ username: USERNAME, password: 'another-password' });
		const { error, item } = await sendFailing();
		expect(error?.message).toBe('The service refused the credentials (HTTP 401)');
		expect(item.json.error).toBe('The service refused the credentials (HTTP 401)');
	});
});

describe('The password and the Basic token never reach a run, echoed by a gateway', () => {
	let server: Server;
	let status: number;
	beforeEach(async () => {
		// Not the sandbox: it never echoes a request's Authorization header.
		// A misbehaving proxy that puts the request's Authorization in its body: as sent, decoded,
		// URL-encoded and as a JSON string.
		server = createServer((req, res) => {
			const authorization = req.headers.authorization ?? '';
			const decoded = Buffer.from(authorization.replace(/^Basic /, ''), 'base64').toString();
			const password = decoded.slice(decoded.indexOf(':') + 1);
			const echo = [authorization, decoded, encodeURIComponent(password), JSON.stringify(password)];
			res.writeHead(status, { 'Content-Type': 'text/plain' }).end(`proxy echo: ${echo.join('; ')}`);
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	});
	afterEach(async () => {
		await new Promise<void>((resolve) => server.close(() => resolve()));
	});

	it.each([
		[500, 'The service failed (HTTP 500)'],
		[401, 'The service refused the credentials (HTTP 401)'],
		[200, "The service's answer could not be read: it is neither JSON nor XML"],
	])('in the error for a %i whose body echoes them', async (answer, message) => {
		status = answer;
		const { error, item } = await sendFailing(
			`http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		);
		expect(error?.message).toBe(message);
		expect(item.json.error).toBe(message);
		// The excerpt of the echo is there, so the check above looked at it.
		expect(exposed({ error } as unknown as IRun)).toContain('proxy echo: Basic ');
	});
});
