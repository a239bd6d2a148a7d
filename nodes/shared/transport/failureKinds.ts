/**
 * What a failure says beyond its words: whether a send may have been taken, what kind of body
 * answered, and whether the failure concerns the account (or its address) rather than one
 * batch. Read from the details that errors.ts puts beside every message.
 */
import { NodeApiError, type JsonObject, type NodeOperationError } from 'n8n-workflow';

/**
 * 429 and 503 are answered before any work; 4xx refuse the request; 301, 307 and 308 say the
 * request belongs elsewhere. 2xx, other 5xx, and 302 and 303 may come after the work: a 303
 * may answer a request carried out ("post, redirect, get"), and frameworks send 302 for it.
 */
export function mayHaveBeenTaken(status: number): boolean {
	if (status >= 500) return status !== 503;
	return (status >= 200 && status < 300) || status === 302 || status === 303;
}

/** What a body is at a glance: the service answers JSON or XML; a web server, a page or text. */
export type AnswerKind = 'json' | 'xml' | 'html' | 'text' | 'empty';

export function answerKind(body: string): AnswerKind {
	let at = 0;
	while (at < body.length && /\s/.test(body[at])) at++;
	const start = body.slice(at, at + 16).toLowerCase();
	if (start === '') return 'empty';
	if (start[0] === '{' || start[0] === '[') return 'json';
	if (start.startsWith('<!doctype html') || start.startsWith('<html')) return 'html';
	return start[0] === '<' ? 'xml' : 'text';
}

/** An HTML page or plain text: what a web server answers, never the service (JSON or XML). */
export function isPage(kind: AnswerKind): boolean {
	return kind === 'html' || kind === 'text';
}

/**
 * Failures before a connection carried the request: no address, no route, refused, or a TLS
 * handshake that failed. A send that met one of these was certainly not taken.
 */
export function neverSent(code: string | undefined): boolean {
	if (code === undefined) return false;
	return (
		['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'].includes(code) ||
		/CERT|TLS|SSL/.test(code)
	);
}

/**
 * Whether a failure concerns the account or its address rather than one batch: the credentials
 * refused (401, 403), nothing reached (refused, unknown host, no route, TLS), or a web page or
 * text where the service's path should be (a 404 or 405, or a 2xx that is not JSON or XML).
 * A 404 in JSON or XML is the service's own answer: for a read, most likely an unknown batch.
 */
export function concernsAccount(error: NodeApiError | NodeOperationError): boolean {
	const details = detailsOf(error);
	const code = Number(error instanceof NodeApiError ? error.httpCode : undefined);
	// A redirect too: the interface never redirects, so the Base URL is not the service's.
	if (code === 401 || code === 403 || (code >= 300 && code < 400)) return true;
	if (typeof details.network_error === 'string') return neverSent(details.network_error);
	const kind = details.answer as AnswerKind | undefined;
	if (kind === undefined) return false;
	if (code === 404 || code === 405 || (code >= 200 && code < 300)) return isPage(kind);
	return false;
}

/**
 * How a request failed, the same for any batch: its HTTP status, its network code, too slow or
 * too large; otherwise its message.
 */
export function failureKind(error: NodeApiError | NodeOperationError): string {
	const details = detailsOf(error);
	if (typeof details.network_error === 'string') return `network ${details.network_error}`;
	if (details.timeout_ms !== undefined) return 'too slow';
	if (details.max_bytes !== undefined) return 'too large';
	return error instanceof NodeApiError && error.httpCode ? `HTTP ${error.httpCode}` : error.message;
}

/** What `failure` put beside the message (n8n keeps it as the error's errorResponse). */
function detailsOf(error: NodeApiError | NodeOperationError): JsonObject {
	return (error.errorResponse ?? {}) as JsonObject;
}
