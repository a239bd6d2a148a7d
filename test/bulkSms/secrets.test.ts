/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * No run shows the account's password or its Basic token, in any escaping a gateway may echo
 * it in: not in an output item, an error's message, description or context, nor in n8n's error
 * JSON. One table: every form (test/transport/forms.ts) × every failure kind × Send, Get
 * Status and the trigger.
 *
 * The peer is an ad hoc echoing server on 127.0.0.1, not the sandbox: the sandbox is the
 * service as documented and never echoes a secret; a misbehaving gateway in front of it does.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INode, IRun } from 'n8n-workflow';

import { pollOnce, runWorkflow, type PollOutcome } from '../engine/harness';
import { overrideTransportLimits } from '../../nodes/shared/transport';
import { passwordForms } from '../transport/forms';
import { triggerNode } from '../trigger/helpers';
import { getStatus, line, send, trigger } from './workflow';

const USERNAME = 'alice';
// A space, a slash, a quote, an ampersand, a plus, a '<' and an 'é': each escaping differs.
const PASSWORD = 'pw Secret/47"&+é<11';
const FORMS = passwordForms(USERNAME, PASSWORD);
const ECHO = 'proxy echo: ';

type Operation = 'Send' | 'Get Status' | 'trigger';
const ALL: Operation[] = ['Send', 'Get Status', 'trigger'];

/** How the peer fails, given the form of the password it echoes. */
interface FailureKind {
	name: string;
	operations: Operation[];
	/** The peer's answer; absent when the request never reaches it. */
	answer?: (form: string, res: ServerResponse) => void;
	/** The credential's Base URL, given the peer's address and the form. */
	baseUrl?: (peer: string, form: string) => string;
	/** What in the run shows that the echo was looked at (and blanked). */
	shows: string;
	/** The transport's message for this failure, in each run. */
	message: RegExp;
	/** The trigger's, when it words the failure as the account's (trigger/account.ts). */
	triggerMessage?: RegExp;
}

const echoWith =
	(status: number, headers: Record<string, string> = {}) =>
	(form: string, res: ServerResponse) =>
		res.writeHead(status, { 'Content-Type': 'text/plain', ...headers }).end(`${ECHO}${form}`);

const KINDS: FailureKind[] = [
	{
		name: '401',
		operations: ALL,
		answer: echoWith(401),
		shows: `${ECHO}***`,
		message: /refused the credentials \(HTTP 401\)/,
		triggerMessage: /Wrong username or password: the service refused them \(HTTP 401\)/,
	},
	{
		name: '403',
		operations: ALL,
		answer: echoWith(403),
		shows: `${ECHO}***`,
		message: /refused the credentials \(HTTP 403\)/,
		triggerMessage: /The service refused this account \(HTTP 403\)/,
	},
	{ name: '404', operations: ALL, answer: echoWith(404), shows: `${ECHO}***`, message: /HTTP 404/ },
	{
		name: '429',
		operations: ALL,
		answer: echoWith(429, { 'Retry-After': '0' }),
		shows: `${ECHO}***`,
		message: /HTTP 429/,
	},
	{ name: '500', operations: ALL, answer: echoWith(500), shows: `${ECHO}***`, message: /HTTP 500/ },
	{
		name: 'an unreadable 200',
		operations: ALL,
		answer: echoWith(200),
		shows: `${ECHO}***`,
		message: /could not be read/,
		triggerMessage: /does not answer like the Bulk SMS service: it is neither JSON nor XML/,
	},
	{
		name: 'a refused send whose error echoes it',
		operations: ['Send'],
		answer: (form, res) =>
			res.writeHead(200, { 'Content-Type': 'application/json' }).end(
				JSON.stringify({
					accepted: false,
					batch_size: 0,
					receive_updates: false,
					error: `${ECHO}${form}`,
				}),
			),
		shows: `${ECHO}***`,
		message: /did not accept the batch/,
	},
	{
		name: 'a Base URL that is not http(s), with user:password@',
		operations: ALL,
		baseUrl: (peer, form) => `ftp://${USERNAME}:${form}@${peer.replace('http://', '')}`,
		shows: 'ftp://***@127.0.0.1',
		message: /not an http\(s\) address/,
	},
	{
		name: 'a network error, the Base URL with user:password@',
		operations: ALL,
		answer: (_form, res) => res.socket?.destroy(),
		baseUrl: (peer, form) => peer.replace('http://', `http://${USERNAME}:${form}@`),
		shows: 'network_error',
		message: /Cannot reach|outcome is unknown/,
	},
];

let server: Server;
let peer: string;
let current: { kind: FailureKind; form: string };
/** The Authorization headers the peer received: the token as n8n really wrote it. */
const received = new Set<string>();
let restoreLimits: () => void;

beforeAll(async () => {
	// Retries of reads would otherwise wait 0.5 s and 1 s in every case.
	restoreLimits = overrideTransportLimits({ firstRetryMs: 1 });
	server = createServer((req: IncomingMessage, res: ServerResponse) => {
		if (req.headers.authorization) received.add(req.headers.authorization.replace(/^Basic /, ''));
		req.resume();
		current.kind.answer?.(current.form, res);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	peer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
	restoreLimits();
	server.closeAllConnections();
	await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Everything a run holds as JSON, every error with its own fields (stack, cause…) too. */
function exposed(value: unknown): string {
	const seen = new WeakSet<object>();
	return JSON.stringify(value, (_key, inner: unknown) => {
		if (typeof inner !== 'object' || inner === null) return inner;
		if (seen.has(inner)) return '[seen]';
		seen.add(inner);
		if (!(inner instanceof Error)) return inner;
		const fields = inner as unknown as Record<string, unknown>;
		return Object.fromEntries(Object.getOwnPropertyNames(inner).map((k) => [k, fields[k]]));
	});
}

const credentials = (baseUrl: string) => ({
	bulkSmsApi: { baseUrl, username: USERNAME, password: PASSWORD, timeZone: 'UTC' },
});

/** The node under test, stopping on its error, then under Continue On Fail. */
function nodeFor(operation: 'Send' | 'Get Status', continueOnFail: boolean): INode {
	const extra: Partial<INode> = continueOnFail ? { onError: 'continueRegularOutput' } : {};
	return operation === 'Send'
		? send({ destinations: '447700900120', message: 'Hi' }, extra)
		: getStatus({ batchId: '123' }, extra);
}

/** What the operation leaves behind, as JSON; a poll is repeated until it reports an error. */
async function runOf(operation: Operation, baseUrl: string): Promise<string[]> {
	if (operation !== 'trigger') {
		const runs: IRun[] = [];
		for (const continueOnFail of [false, true]) {
			runs.push(
				await runWorkflow({
					...line(trigger(), nodeFor(operation, continueOnFail)),
					credentials: credentials(baseUrl),
				}),
			);
		}
		return runs.map(exposed);
	}
	const node = triggerNode({ batchIds: '123', emit: 'changes', emitExisting: true });
	const staticData = {};
	const persisted = {};
	const outcomes: PollOutcome[] = [];
	for (let poll = 0; poll < 5 && !outcomes.some((o) => o.error); poll++) {
		outcomes.push(
			await pollOnce({ node, credentials: credentials(baseUrl), staticData, persisted }),
		);
	}
	return outcomes.map(exposed);
}

const CASES = KINDS.flatMap((kind) =>
	kind.operations.flatMap((operation) =>
		FORMS.map(([formName, form]) => [kind.name, operation, formName, { kind, form }] as const),
	),
);

describe('No secret reaches a run, whatever a gateway echoes', () => {
	it.each(CASES)('%s, %s, password %s', async (_kind, operation, _form, { kind, form }) => {
		current = { kind, form };
		const baseUrl = kind.baseUrl ? kind.baseUrl(peer, form) : peer;
		const texts = await runOf(operation, baseUrl);
		// The runs are looked at as JSON, which escapes a form's own backslashes and quotes again;
		// an excerpt is one line, its runs of white space (a line break in a form) made one space.
		const secrets = [PASSWORD, ...FORMS.map(([, each]) => each), ...received].flatMap((secret) => [
			secret,
			JSON.stringify(secret).slice(1, -1),
			secret.replace(/\s+/g, ' '),
		]);
		for (const text of texts) {
			for (const secret of secrets) expect(text).not.toContain(secret);
		}
		// The failure did reach the run, and the echo (or the address) with it, blanked: the
		// check above looked at it. The trigger words its own error around the transport's
		// message and keeps no excerpt.
		const message = operation === 'trigger' ? (kind.triggerMessage ?? kind.message) : kind.message;
		expect(texts.join('\n')).toMatch(message);
		if (operation !== 'trigger') expect(texts.join('\n')).toContain(kind.shows);
	});
});
