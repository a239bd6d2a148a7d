/** Small HTTP helpers shared by the API and admin handlers. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export const MAX_BODY_BYTES = 1024 * 1024;

export class BodyTooLarge extends Error {}

export async function readBody(req: IncomingMessage): Promise<string> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of req) {
		size += (chunk as Buffer).length;
		if (size > MAX_BODY_BYTES) throw new BodyTooLarge();
		chunks.push(chunk as Buffer);
	}
	return Buffer.concat(chunks).toString('utf8');
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
