/** What the sandbox tests share: a real HTTP client over fetch, and lossless readers of bodies. */
import { XMLParser } from 'fast-xml-parser';
import { startSandbox, type Sandbox, type SandboxOptions } from '../server';

export const DEMO = { username: 'demo', password: 'demo-password' };

export function basic(username: string, password: string): string {
	return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

export interface Call {
	status: number;
	headers: Headers;
	text: string;
}

interface CallOptions {
	accept?: string | null;
	auth?: { username: string; password: string } | null;
	method?: string;
	contentType?: string;
	body?: string;
}

export async function call(sb: Sandbox, path: string, o: CallOptions = {}): Promise<Call> {
	const headers: Record<string, string> = {};
	const auth = o.auth === undefined ? DEMO : o.auth;
	if (auth) headers.Authorization = basic(auth.username, auth.password);
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
	sb: Sandbox,
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

export function getStatus(sb: Sandbox, batchId: string, o: CallOptions = {}): Promise<Call> {
	return call(sb, `/api/sms/get_status?batch_id=${encodeURIComponent(batchId)}`, o);
}

/**
 * JSON.parse, but every integer of more than 15 digits is read as its digits (a string), so the
 * tests can check ids exactly; the text is checked to hold them as bare numbers first.
 */
export function parseJsonLossless(text: string): any {
	return JSON.parse(text.replace(/([:,[]\s*)(-?\d{16,})(?=\s*[,}\]])/g, '$1"$2"'));
}

/** The bare-number digits of every occurrence of `"key":<digits>` in a JSON text. */
export function rawNumbers(text: string, key: string): string[] {
	return [...text.matchAll(new RegExp(`"${key}"\\s*:\\s*(-?\\d+)`, 'g'))].map((m) => m[1]);
}

const xml = new XMLParser({ parseTagValue: false, isArray: (name) => name === 'delivery_report' });

export function parseXml(text: string): any {
	return xml.parse(text);
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
	sb: Sandbox,
	fields: Record<string, string>,
	o: CallOptions = {},
): Promise<string> {
	const res = await send(sb, fields, o);
	const body = parseJsonLossless(res.text);
	if (res.status !== 200 || body.accepted !== true)
		throw new Error(`send not accepted: ${res.status} ${res.text}`);
	return body.batch_id as string;
}
