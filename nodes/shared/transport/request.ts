/**
 * One HTTP attempt through n8n's helper (so the credential's authentication applies), bounded
 * in total time and in the size of what is read.
 */
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	IPollFunctions,
} from 'n8n-workflow';

import type { TransportLimits } from './limits';
import { CREDENTIAL } from './settings';

export type BulkSmsFunctions = IExecuteFunctions | IPollFunctions;

export interface RawAnswer {
	statusCode: number;
	headers: IDataObject;
	body: string;
}

/** Why an attempt ended without an answer to read. */
export type AttemptFailure =
	| { kind: 'network'; code: string | undefined }
	| { kind: 'tooSlow' }
	| { kind: 'tooLarge'; statusCode: number };

/** An attempt gives an answer to read, or a failure to report (or to retry). */
export type Attempt = { answer: RawAnswer } | { failure: AttemptFailure };

interface FullResponse {
	statusCode?: number;
	headers?: IDataObject;
	body?: unknown;
}

/** What n8n's helper gives for `encoding: 'stream'`: a readable that can be stopped. */
interface BodyStream {
	destroy(): void;
	on(event: string, listener: (value?: unknown) => void): unknown;
}

/**
 * A send on its way when the user presses Stop is let finish, so that its answer is recorded: cut
 * off, whether the service took it would be unknown and its numbers in doubt. n8n's helper puts
 * the execution's cancel signal in place of the request's own whenever its caller has one
 * (`getExecutionCancelSignal` in it); the caller given here hides it. No request starts after Stop
 * (Send's run.ts), and the one on its way ends by its own deadline.
 */
export function finishingOnStop(context: BulkSmsFunctions): BulkSmsFunctions {
	return new Proxy(context, {
		has: (target, key) => key !== 'getExecutionCancelSignal' && Reflect.has(target, key),
	});
}

/**
 * n8n's `timeout` only limits the time between two bytes, so a server trickling one byte at a
 * time holds a request for ever. The deadline bounds the whole attempt, answer included: the
 * answer is taken as a stream and read here, which also caps how much is read (n8n's helper
 * reads any size whole). In a poll the deadline also aborts the request itself; in an
 * execution n8n puts its own cancel signal in its place, so the wait is cut here and the
 * stream, should it still come, is destroyed. (n8n's `timeout`, set to the same limit, also
 * bounds the wait for the status line as wall-clock time; only the body is left idle-timed.)
 */
export async function requestOnce(
	this: BulkSmsFunctions,
	options: IHttpRequestOptions,
	credentials: ICredentialDataDecryptedObject,
	limits: TransportLimits,
): Promise<Attempt> {
	const deadline = AbortSignal.timeout(limits.totalMs);
	let response: FullResponse;
	try {
		const request = this.helpers.httpRequestWithAuthentication.call(
			this,
			CREDENTIAL,
			{ ...options, encoding: 'stream', abortSignal: deadline },
			// The credential the caller read (and blanks): n8n need not read and decrypt it again.
			{
				credentialsDecrypted: {
					id: '',
					name: CREDENTIAL,
					type: CREDENTIAL,
					data: { ...credentials },
				},
			},
		) as Promise<FullResponse>;
		response = await beforeDeadline(request, deadline);
	} catch (error) {
		return { failure: failureOf(error, deadline) };
	}
	const statusCode = Number(response.statusCode ?? 0);
	const headers = response.headers ?? {};
	if (Number(headers['content-length'] ?? 0) > limits.maxBodyBytes) {
		stop(response.body);
		return { failure: { kind: 'tooLarge', statusCode } };
	}
	const body = await readBody(response.body, statusCode, limits.maxBodyBytes, deadline);
	if (typeof body !== 'string') return { failure: body };
	return { answer: { statusCode, headers, body } };
}

/** A failed request or read: too slow once the deadline passed, else a network failure. */
function failureOf(error: unknown, deadline: AbortSignal): AttemptFailure {
	return deadline.aborted ? { kind: 'tooSlow' } : { kind: 'network', code: networkCode(error) };
}

/** The request's answer, or a rejection once the deadline passed (a late answer is dropped). */
async function beforeDeadline<T extends FullResponse>(
	request: Promise<T>,
	deadline: AbortSignal,
): Promise<T> {
	return await new Promise<T>((resolve, reject) => {
		const expire = () => reject(new Error('deadline passed'));
		deadline.addEventListener('abort', expire, { once: true });
		request.then(
			(response) => {
				deadline.removeEventListener('abort', expire);
				if (deadline.aborted) stop(response.body);
				resolve(response);
			},
			(error) => {
				deadline.removeEventListener('abort', expire);
				reject(error);
			},
		);
	});
}

function stop(body: unknown): void {
	if (isStream(body)) body.destroy();
}

function isStream(body: unknown): body is BodyStream {
	const stream = body as BodyStream | null | undefined;
	return typeof stream?.destroy === 'function' && typeof stream.on === 'function';
}

/**
 * The body as text, read until the end, the size cap or the deadline, whichever comes first.
 * Read by events: an async iterator costs a promise per chunk, twice the time of a plain read.
 */
async function readBody(
	body: unknown,
	statusCode: number,
	maxBytes: number,
	deadline: AbortSignal,
): Promise<string | AttemptFailure> {
	if (!isStream(body)) return textOf([asBytes(body ?? '')], maxBytes, statusCode);
	return await new Promise((resolve) => {
		const chunks: Buffer[] = [];
		let size = 0;
		const finish = (result: string | AttemptFailure) => {
			deadline.removeEventListener('abort', tooLate);
			resolve(result);
			// Stops receiving whatever is still coming; a no-op once the body has ended.
			body.destroy();
		};
		const tooLate = () => finish({ kind: 'tooSlow' });
		deadline.addEventListener('abort', tooLate, { once: true });
		if (deadline.aborted) return tooLate();
		body.on('data', (chunk) => {
			const bytes = asBytes(chunk);
			size += bytes.length;
			if (size > maxBytes) return finish({ kind: 'tooLarge', statusCode });
			chunks.push(bytes);
		});
		body.on('end', () => finish(textOf(chunks, maxBytes, statusCode)));
		body.on('error', (error) => finish(failureOf(error, deadline)));
		// Closed before its end without an error: the connection went away.
		body.on('close', () => finish({ kind: 'network', code: 'ECONNRESET' }));
	});
}

function asBytes(chunk: unknown): Buffer {
	return Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk), 'utf8');
}

function textOf(chunks: Buffer[], maxBytes: number, statusCode: number): string | AttemptFailure {
	const bytes = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
	if (bytes.length > maxBytes) return { kind: 'tooLarge', statusCode };
	// As n8n's text decoding does: UTF-8, a leading byte-order mark dropped.
	const text = bytes.toString('utf8');
	return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** The first error code in the chain of causes (ECONNREFUSED, ECONNRESET…), if any. */
function networkCode(error: unknown): string | undefined {
	for (
		let cause = error as { code?: unknown; cause?: unknown } | undefined, depth = 0;
		cause && depth < 4;
		depth++
	) {
		if (typeof cause.code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(cause.code)) return cause.code;
		cause = cause.cause as typeof cause;
	}
	return undefined;
}
