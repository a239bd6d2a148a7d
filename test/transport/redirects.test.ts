/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * No request of the package follows a redirect: Send, Get Status, the polling trigger (all
 * through nodes/shared/transport) and the credential test. The interface never redirects, and
 * n8n by default follows a 3xx with the account's Basic credentials to whatever origin it names
 * (`sendCredentialsOnCrossOriginRedirect` defaults to true), re-posts a send there (307/308) or
 * turns it into a GET whose answer is taken as the send's (301/302/303).
 *
 * Two servers on 127.0.0.1, on two ports (two origins): the Base URL answers every request with
 * the status under test and a Location on the other server, which answers as the service would
 * (so a followed redirect would succeed) and records every request it receives.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INode } from 'n8n-workflow';

import {
	outputOf,
	pollOnce,
	runWorkflow,
	testCredential,
	type PollOutcome,
} from '../engine/harness';
import { getStatus, line, send, trigger } from '../bulkSms/workflow';
import { triggerNode } from '../trigger/helpers';

interface Peer {
	baseUrl: string;
	/** Every request received: method, path and query, Authorization header. */
	received: Array<{ method?: string; url?: string; authorization?: string }>;
	stop(): Promise<void>;
}

async function peer(answer: (req: IncomingMessage) => [number, Record<string, string>, string]) {
	const received: Peer['received'] = [];
	const server: Server = createServer((req, res) => {
		received.push({ method: req.method, url: req.url, authorization: req.headers.authorization });
		req.resume();
		const [status, headers, body] = answer(req);
		res.writeHead(status, headers).end(body);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		received,
		stop: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

const JSON_TYPE = { 'Content-Type': 'application/json' };
const ACCEPTED =
	'{"accepted":true,"batch_id":123,"batch_size":1,"receive_updates":false,"remaining_credits":9}';
const REPORTS =
	'{"reports":[{"batch_id":123,"network_id":1,"status":"DELIVRD","msisdn":"447700900120","gateway_session_id":1,"delivery_date":"2027-01-01 10:00:00.0"}]}';

let elsewhere: Peer;
let redirector: Peer;
let status = 301;

beforeAll(async () => {
	elsewhere = await peer((req) => [
		200,
		JSON_TYPE,
		req.url?.startsWith('/api/sms/get_status') ? REPORTS : ACCEPTED,
	]);
	// The Location carries a query, which no message may quote.
	redirector = await peer((req) => [
		status,
		{
			Location: `${elsewhere.baseUrl}${req.url}${req.url?.includes('?') ? '&' : '?'}session=s3cr3t`,
		},
		'',
	]);
});
afterAll(async () => {
	await Promise.all([elsewhere.stop(), redirector.stop()]);
});
beforeEach(() => {
	elsewhere.received.length = 0;
	redirector.received.length = 0;
});

const credentials = () => ({
	bulkSmsApi: {
		baseUrl: redirector.baseUrl,
		username: 'demo',
		password: 'demo-password',
		timeZone: 'UTC',
	},
});

const CONTINUE: Partial<INode> = { onError: 'continueRegularOutput' };

/** What each operation reports for the redirect, as text: its error and description. */
const OPERATIONS: Record<string, () => Promise<{ text: string; outcome?: unknown }>> = {
	async Send() {
		const run = await runWorkflow({
			...line(trigger(), send({ destinations: '447700900120', message: 'Hi' }, CONTINUE)),
			credentials: credentials(),
		});
		const json = outputOf(run, 'Send')[0].json;
		return { text: `${json.error} ${json.description}`, outcome: json.send_outcome };
	},
	async 'Get Status'() {
		const run = await runWorkflow({
			...line(trigger(), getStatus({ batchId: '123' }, CONTINUE)),
			credentials: credentials(),
		});
		const json = outputOf(run, 'Get Status')[0].json;
		return { text: `${json.error} ${json.description}` };
	},
	/** Polls (as an active workflow does) until the failing batch is reported. */
	async poll() {
		const node = triggerNode({ batchIds: '123', emit: 'changes', emitExisting: true });
		const spec = { node, credentials: credentials(), staticData: {}, persisted: {} };
		let outcome: PollOutcome | undefined;
		for (let poll = 0; poll < 5 && !outcome?.error; poll++) outcome = await pollOnce(spec);
		const error = outcome?.error as (Error & { description?: string }) | undefined;
		return { text: `${error?.message} ${error?.description}` };
	},
	async 'credential test'() {
		const result = await testCredential('bulkSmsApi', credentials().bulkSmsApi);
		return { text: `${result.status}: ${result.message}` };
	},
};

const CODES = [301, 302, 303, 307, 308];
const CASES = CODES.flatMap((code) => Object.keys(OPERATIONS).map((op) => [code, op] as const));

describe('a redirect is never followed, and the credentials never leave the Base URL', () => {
	it.each(CASES)('HTTP %i, %s', async (code, operation) => {
		status = code;
		const { text, outcome } = await OPERATIONS[operation]();
		// Nothing reached the other origin: no request, so no Authorization header either.
		expect(elsewhere.received).toEqual([]);
		// Asked once per poll or run: a redirect is not retried.
		expect(redirector.received.length).toBeGreaterThan(0);
		expect(redirector.received.every((r) => r.url?.startsWith('/api/sms/'))).toBe(true);
		if (operation === 'credential test') {
			expect(text).toBe(
				`Error: The Base URL redirects elsewhere (HTTP ${code}): the test did not follow it, as the Bulk SMS service never redirects, so the credentials were not sent there. Set the Base URL to the service's own address (the one it redirects to, if that is your provider's)`,
			);
			return;
		}
		expect(text).toContain(`The Base URL redirects to ${elsewhere.baseUrl} (HTTP ${code})`);
		expect(text).toContain(
			`If ${elsewhere.baseUrl} is your provider's service address, set the Base URL in the Bulk SMS credential to it (now ${redirector.baseUrl}).`,
		);
		expect(text).not.toContain('s3cr3t');
		// 302 and 303 may answer a request the server carried out ("post, redirect, get").
		if (operation === 'Send')
			expect(outcome).toBe(code === 302 || code === 303 ? 'unknown' : 'not sent');
	});
});
