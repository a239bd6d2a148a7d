/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/** Small HTTP helpers shared by the API and admin handlers. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The body as text, or undefined when it is over MAX_BODY_BYTES. The rest of a large body is
 * still read (and dropped), so the client can finish sending and then read the answer, which
 * may be a 401 rather than a 413: credentials are checked first.
 */
export async function readBody(req: IncomingMessage): Promise<string | undefined> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of req) {
		size += (chunk as Buffer).length;
		if (size <= MAX_BODY_BYTES) chunks.push(chunk as Buffer);
	}
	return size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString('utf8');
}

export function respond(
	res: ServerResponse,
	status: number,
	body: string,
	contentType: string,
	headers: Record<string, string> = {},
): void {
	res.writeHead(status, {
		'Content-Type': contentType,
		'Content-Length': Buffer.byteLength(body),
		...headers,
	});
	res.end(body);
}

export function respondText(
	res: ServerResponse,
	status: number,
	text: string,
	headers: Record<string, string> = {},
) {
	respond(res, status, `${text}\n`, 'text/plain; charset=utf-8', headers);
}

export function respondJson(res: ServerResponse, status: number, value: unknown): void {
	respond(res, status, `${JSON.stringify(value, null, 2)}\n`, 'application/json; charset=utf-8');
}

/** Username and password of HTTP Basic credentials, or undefined when absent or malformed. */
export function basicCredentials(
	header: string | undefined,
): { username: string; password: string } | undefined {
	const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
	if (!m) return undefined;
	const decoded = Buffer.from(m[1], 'base64').toString('utf8');
	const colon = decoded.indexOf(':');
	if (colon < 0) return undefined;
	return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export function isFormContentType(header: string | undefined): boolean {
	return (header ?? '').split(';')[0].trim().toLowerCase() === 'application/x-www-form-urlencoded';
}
