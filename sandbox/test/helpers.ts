/* eslint-disable
	@n8n/community-nodes/no-dangerous-functions,
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * What the sandbox tests share: a real HTTP client over fetch, lossless readers of bodies, and
 * the CLI run as a child process.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { startSandbox, type Received, type Sandbox, type SandboxOptions } from '../server';

export const DEMO = { username: 'demo', password: 'demo-password' };

export function basic(username: string, password: string): string {
	return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

/** A sandbox in this process or a CLI child: all a request needs is where it listens. */
type Target = Pick<Sandbox, 'baseUrl'>;

export interface Call {
	status: number;
	headers: Headers;
	text: string;
}

interface CallOptions {
	accept?: string | null;
	auth?: { username: string; password: string } | null;
	/** A raw Authorization header, sent instead of `auth`. */
	authorization?: string;
	method?: string;
	contentType?: string;
	body?: string;
}

export async function call(sb: Target, path: string, o: CallOptions = {}): Promise<Call> {
	const headers: Record<string, string> = {};
	const auth = o.auth === undefined ? DEMO : o.auth;
	if (auth) headers.Authorization = basic(auth.username, auth.password);
	if (o.authorization !== undefined) headers.Authorization = o.authorization;
	if (o.accept !== null) headers.Accept = o.accept ?? 'application/json';
	if (o.contentType) headers['Content-Type'] = o.contentType;
	const res = await fetch(`${sb.baseUrl}${path}`, {
		method: o.method ?? 'GET',
		headers,
		body: o.body,
	});
	return { status: res.status, headers: res.headers, text: await res.text() };
}

export function send(
	sb: Target,
	fields: Record<string, string>,
	o: CallOptions = {},
): Promise<Call> {
	return call(sb, '/api/sms/send', {
		method: 'POST',
		contentType: 'application/x-www-form-urlencoded',
		body: new URLSearchParams(fields).toString(),
		...o,
	});
}

export function getStatus(sb: Target, batchId: string, o: CallOptions = {}): Promise<Call> {
	return call(sb, `/api/sms/get_status?batch_id=${encodeURIComponent(batchId)}`, o);
}

/** A parsed answer: its fields are what the assertions say they must be. */
export type Answer = { [field: string]: unknown };

/**
 * JSON.parse, but every integer of more than 15 digits is read as its digits (a string), so the
 * tests can check ids exactly; the text is checked to hold them as bare numbers first.
 */
export function parseJsonLossless(text: string): Answer {
	return asAnswer(
		JSON.parse(text.replace(/([:,[]\s*)(-?\d{16,})(?=\s*[,}\]])/g, '$1"$2"')),
		'JSON answer',
	);
}

/** The bare-number digits of every occurrence of `"key":<digits>` in a JSON text. */
export function rawNumbers(text: string, key: string): string[] {
	return [...text.matchAll(new RegExp(`"${key}"\\s*:\\s*(-?\\d+)`, 'g'))].map((m) => m[1]);
}

const xml = new XMLParser({ parseTagValue: false, isArray: (name) => name === 'delivery_report' });

export function parseXml(text: string): Answer {
	return asAnswer(xml.parse(text), 'XML answer');
}

/** The element under the root of an XML answer (`sms_send`, `sms_get_status`). */
export function xmlElement(text: string, root: string): Answer {
	return asAnswer(parseXml(text)[root], root);
}

/** The delivery reports of a get_status answer (or a callback) in JSON, ids as digits. */
export function jsonReports(text: string): Answer[] {
	return listOf(parseJsonLossless(text).reports, 'reports');
}

/** The delivery reports of a get_status answer (or a callback) in XML: always a list. */
export function xmlReports(text: string): Answer[] {
	const reports = asAnswer(xmlElement(text, 'sms_get_status').reports, 'reports');
	return listOf(reports.delivery_report, 'delivery_report');
}

/** `/_sandbox/batches`, as the sandbox's own view types it. */
export function parseReceived(text: string): Received {
	const answer = parseJsonLossless(text);
	listOf(answer.batches, 'batches');
	listOf(answer.destinations, 'destinations');
	return answer as unknown as Received;
}

function asAnswer(value: unknown, what: string): Answer {
	if (typeof value !== 'object' || value === null || Array.isArray(value))
		throw new Error(`${what} is not an object: ${JSON.stringify(value)}`);
	return value as Answer;
}

function listOf(value: unknown, what: string): Answer[] {
	if (!Array.isArray(value)) throw new Error(`${what} is not a list: ${JSON.stringify(value)}`);
	return value.map((entry) => asAnswer(entry, `an entry of ${what}`));
}

export async function withSandbox<T>(
	options: Partial<SandboxOptions>,
	run: (sb: Sandbox) => Promise<T>,
): Promise<T> {
	const sb = await startSandbox(options);
	try {
		return await run(sb);
	} finally {
		await sb.stop();
	}
}

/** Accepts a batch and returns its id (as digits). */
export async function sendOk(
	sb: Target,
	fields: Record<string, string>,
	o: CallOptions = {},
): Promise<string> {
	const res = await send(sb, fields, o);
	const body = parseJsonLossless(res.text);
	if (res.status !== 200 || body.accepted !== true || typeof body.batch_id !== 'string')
		throw new Error(`send not accepted: ${res.status} ${res.text}`);
	return body.batch_id;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `done()` holds or `ms` have passed; the caller then asserts what it needs. */
export async function until(done: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
	for (const end = Date.now() + ms; Date.now() < end && !(await done()); ) await sleep(10);
}

export interface CliProcess {
	baseUrl: string;
	pid: number;
	/** Everything printed on stdout so far. */
	output(): string;
	/** Sends the signal and resolves once the process has exited. */
	stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * `sandbox/cli.ts` run by node itself (tsx as a loader), so the child's pid is the sandbox's own
 * and a SIGKILL reaches it; on a free port, without the SANDBOX_* variables of this shell.
 */
/** How long a CLI may take to say it listens, on a loaded machine. */
export const CLI_START_MS = 60_000;

export async function startCli(
	args: string[],
	env: Record<string, string> = {},
): Promise<CliProcess> {
	const clean = Object.fromEntries(
		Object.entries(process.env).filter(([k]) => !k.startsWith('SANDBOX_')),
	);
	const child = spawn(
		process.execPath,
		['--import', 'tsx', 'sandbox/cli.ts', '--port', '0', '--quiet', ...args],
		{
			cwd: path.resolve(__dirname, '../..'),
			env: { ...clean, ...env },
			stdio: ['ignore', 'pipe', 'pipe'],
		},
	);
	let out = '';
	let err = '';
	child.stdout.on('data', (d: Buffer) => (out += d.toString()));
	child.stderr.on('data', (d: Buffer) => (err += d.toString()));
	const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
	const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
		if (child.exitCode === null && child.signalCode === null) child.kill(signal);
		await exited;
	};
	// Generous: several CLIs start at once (it.concurrent), each compiling itself with tsx.
	await until(() => /Press Ctrl-C/.test(out) || child.exitCode !== null, CLI_START_MS);
	const baseUrl = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
	if (!baseUrl) {
		await stop('SIGKILL');
		throw new Error(`the sandbox CLI did not start:\n${out}${err}`);
	}
	return { baseUrl, pid: child.pid!, output: () => out, stop };
}
