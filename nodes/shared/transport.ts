import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	IPollFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import type { WireFormat } from './domain/body';
import { isValidTimeZone } from './domain/dates';
import {
	readSendAnswer,
	readStatusAnswer,
	ResponseShapeError,
	type RawReport,
	type SendResponse,
} from './domain/responses';

/** The one place that talks HTTP to the service: used by BulkSms and BulkSms Trigger. */

export type BulkSmsFunctions = IExecuteFunctions | IPollFunctions;

export interface CallOptions {
	format: WireFormat;
	itemIndex?: number;
	/** Shared by the requests of one execution that go out together (see RequestPace). */
	pace?: RequestPace;
}

/**
 * Requests that go out together share one pace: a 429 or a 503 holds all of them until its
 * Retry-After has passed, not only the request that met it, since they hit the same limit.
 */
export class RequestPace {
	private until = 0;

	hold(ms: number): void {
		this.until = Math.max(this.until, Date.now() + ms);
	}

	async ready(): Promise<void> {
		for (let wait = this.until - Date.now(); wait > 0; wait = this.until - Date.now()) {
			await sleep(wait);
		}
	}
}

export interface ServiceSettings {
	baseUrl: string;
	timeZone: string;
}

export interface SendRequest {
	destinations: readonly string[];
	message: string;
	validity_period?: string;
}

/**
 * A send that failed after the service may have taken it: the connection broke after the
 * request was written, a 5xx other than 503, or a 2xx that could not be read. Never resent.
 */
export class SendOutcomeUnknownError extends NodeApiError {}

/** 429 and 503 are answered before any work; 4xx refuse the request. Other failures may come after. */
function mayHaveBeenTaken(status: number): boolean {
	return status >= 500 ? status !== 503 : status >= 200 && status < 300;
}

function errorClassFor(policy: CallPolicy, status: number): typeof NodeApiError {
	return !policy.idempotent && mayHaveBeenTaken(status) ? SendOutcomeUnknownError : NodeApiError;
}

interface HttpAnswer {
	statusCode: number;
	headers: IDataObject;
	body: string;
	/** The account's secrets, to blank out of any excerpt of the body (a proxy may echo them). */
	secrets: readonly string[];
}

const CREDENTIAL = 'bulkSmsApi';
const TIMEOUT_MS = 60_000;
const MAX_ATTEMPTS = 3;
const MAX_RETRY_WAIT_MS = 30_000;
const ACCEPT: Record<WireFormat, string> = { json: 'application/json', xml: 'application/xml' };

/** Reads the credential's settings that node code needs (never the secrets). */
export async function serviceSettings(
	this: BulkSmsFunctions,
	itemIndex = 0,
): Promise<ServiceSettings> {
	return settingsOf.call(this, await this.getCredentials(CREDENTIAL, itemIndex), itemIndex);
}

function settingsOf(
	this: BulkSmsFunctions,
	credentials: ICredentialDataDecryptedObject,
	itemIndex: number,
): ServiceSettings {
	const baseUrl = String(credentials.baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
	if (!/^https?:\/\/[^/]/i.test(baseUrl)) {
		throw new NodeOperationError(
			this.getNode(),
			'The Base URL in the Bulk SMS credential is not an http(s) address',
			{
				description: `Set it to the service address, e.g. https://sms.example.com or http://127.0.0.1:8555 for the sandbox (got "${baseUrl.slice(0, 60)}").`,
				itemIndex,
			},
		);
	}
	const timeZone = String(credentials.timeZone || 'UTC').trim();
	if (!isValidTimeZone(timeZone)) {
		throw new NodeOperationError(
			this.getNode(),
			`Unknown time zone "${timeZone}" in the Bulk SMS credential`,
			{
				description: 'Use an IANA time zone name such as UTC, Europe/London or America/New_York.',
				itemIndex,
			},
		);
	}
	return { baseUrl, timeZone };
}

/**
 * Submits one batch. A send is not idempotent, so it is repeated only when the service
 * certainly did not take it; any other failure is reported, never retried.
 */
export async function sendBatch(
	this: BulkSmsFunctions,
	request: SendRequest,
	options: CallOptions,
): Promise<SendResponse> {
	const form = new URLSearchParams({
		destination: request.destinations.join(','),
		message: request.message,
	});
	if (request.validity_period) form.set('validity_period', request.validity_period);
	const answer = await call.call(
		this,
		{
			method: 'POST',
			url: '/api/sms/send',
			body: form.toString(),
			headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
		},
		{ ...options, idempotent: false },
	);
	return read(this, answer, readSendAnswer, { ...options, idempotent: false });
}

/** Fetches the delivery reports of one batch; a read, so transient failures are retried. */
export async function fetchReports(
	this: BulkSmsFunctions,
	batchId: string,
	options: CallOptions,
): Promise<RawReport[]> {
	const answer = await call.call(
		this,
		{ method: 'GET', url: '/api/sms/get_status', qs: { batch_id: batchId } },
		{ ...options, idempotent: true, notFound: `The service does not know batch ${batchId}` },
	);
	return read(this, answer, readStatusAnswer, { ...options, idempotent: true });
}

interface CallPolicy extends CallOptions {
	idempotent: boolean;
	notFound?: string;
}

async function call(
	this: BulkSmsFunctions,
	request: Pick<IHttpRequestOptions, 'method' | 'url' | 'qs' | 'body' | 'headers'>,
	policy: CallPolicy,
): Promise<HttpAnswer> {
	const credentials = await this.getCredentials(CREDENTIAL, policy.itemIndex);
	const { baseUrl } = settingsOf.call(this, credentials, policy.itemIndex ?? 0);
	const secrets = secretsOf(credentials);
	const options: IHttpRequestOptions = {
		...request,
		baseURL: baseUrl,
		headers: { ...request.headers, Accept: ACCEPT[policy.format] },
		encoding: 'text',
		json: false,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: TIMEOUT_MS,
	};
	const pace = policy.pace ?? new RequestPace();
	for (let attempt = 1; ; attempt++) {
		await pace.ready();
		const answer = await attemptOnce.call(this, options, policy, attempt);
		if (!('retryAfterMs' in answer)) return checkStatus.call(this, { ...answer, secrets }, policy);
		pace.hold(answer.retryAfterMs);
	}
}

/** An answer as it came off the wire, before it is tied to the account it was made for. */
type RawAnswer = Omit<HttpAnswer, 'secrets'>;

type Attempt = RawAnswer | { retryAfterMs: number };

async function attemptOnce(
	this: BulkSmsFunctions,
	options: IHttpRequestOptions,
	policy: CallPolicy,
	attempt: number,
): Promise<Attempt> {
	const canRetry = attempt < MAX_ATTEMPTS;
	let answer: RawAnswer;
	try {
		answer = toAnswer(
			await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIAL, { ...options }),
		);
	} catch (error) {
		const code = networkCode(error);
		if (canRetry && isRetryableNetworkFailure(code, policy.idempotent)) {
			return { retryAfterMs: backoffMs(attempt) };
		}
		throw networkError.call(this, code, policy);
	}
	if (canRetry && isRetryableStatus(answer.statusCode, policy.idempotent)) {
		return { retryAfterMs: retryAfterMs(answer.headers, attempt) };
	}
	return answer;
}

/**
 * Failures before a connection carried the request: no address, no route, refused, or a TLS
 * handshake that failed. A send that met one of these was certainly not taken.
 */
function neverSent(code: string | undefined): boolean {
	if (code === undefined) return false;
	return (
		['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'].includes(code) ||
		/CERT|TLS|SSL/.test(code)
	);
}

/** Connection refused means nothing was written: safe for any call. Resets and timeouts only for reads. */
function isRetryableNetworkFailure(code: string | undefined, idempotent: boolean): boolean {
	if (code === 'ECONNREFUSED') return true;
	return idempotent && ['ECONNRESET', 'ETIMEDOUT', 'ECONNABORTED', 'EPIPE'].includes(code ?? '');
}

/** 429 and 503 are answered before the service does the work; other 5xx only for reads. */
function isRetryableStatus(status: number, idempotent: boolean): boolean {
	if (status === 429 || status === 503) return true;
	return idempotent && (status === 502 || status === 504 || status === 500);
}

function backoffMs(attempt: number): number {
	return 500 * 2 ** (attempt - 1);
}

function retryAfterMs(headers: IDataObject, attempt: number): number {
	const header = String(headers['retry-after'] ?? '').trim();
	const seconds = Number(header);
	if (header !== '' && Number.isFinite(seconds)) {
		return Math.min(Math.max(seconds, 0) * 1000, MAX_RETRY_WAIT_MS);
	}
	const date = Date.parse(header);
	if (!Number.isNaN(date)) return Math.min(Math.max(date - Date.now(), 0), MAX_RETRY_WAIT_MS);
	return backoffMs(attempt);
}

function toAnswer(response: unknown): RawAnswer {
	const full = (response ?? {}) as { statusCode?: number; headers?: IDataObject; body?: unknown };
	const body = full.body;
	return {
		statusCode: Number(full.statusCode ?? 0),
		headers: full.headers ?? {},
		body: typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : '',
	};
}

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

function networkError(
	this: BulkSmsFunctions,
	code: string | undefined,
	policy: CallPolicy,
): NodeApiError {
	const unknownOutcome = !policy.idempotent && !neverSent(code);
	// n8n replaces a message that names a network code with its own generic text, so the
	// code goes into the description.
	const message = unknownOutcome
		? "The send's outcome is unknown: the connection broke after the request was sent"
		: 'Cannot reach the Bulk SMS service';
	const description = unknownOutcome
		? `Network error ${code ?? '(none)'}. The service may or may not have accepted the batch, so it was not sent again. Check your message log or the service before resending these destinations.`
		: `Network error ${code ?? '(none)'}. Check the Base URL in the credential and that the service is running.`;
	// Only the error code travels on: the raw error holds the request, Authorization included.
	const ErrorClass = unknownOutcome ? SendOutcomeUnknownError : NodeApiError;
	return new ErrorClass(this.getNode(), { network_error: code ?? 'none' } as JsonObject, {
		message,
		description,
		itemIndex: policy.itemIndex,
	});
}

function checkStatus(this: BulkSmsFunctions, answer: HttpAnswer, policy: CallPolicy): HttpAnswer {
	const status = answer.statusCode;
	if (status >= 200 && status < 300) return answer;
	const ErrorClass = errorClassFor(policy, status);
	const fail = (message: string, description: string) =>
		new ErrorClass(this.getNode(), { status, excerpt: excerpt(answer) } as JsonObject, {
			message,
			description,
			httpCode: String(status),
			itemIndex: policy.itemIndex,
		});
	if (status === 401 || status === 403) {
		throw fail(
			`The service refused the credentials (HTTP ${status})`,
			'Check the username and password in the Bulk SMS credential.',
		);
	}
	if (status === 404 && policy.notFound) {
		throw fail(
			policy.notFound,
			'Check the batch ID: use the batch_id that Send returned, as text.',
		);
	}
	if (status === 429) {
		throw fail(
			'The service is rate limiting requests (HTTP 429)',
			'Wait a little and run again, or send fewer requests at once.',
		);
	}
	if (status >= 500) {
		throw fail(`The service failed (HTTP ${status})`, `It answered: ${excerpt(answer)}`);
	}
	throw fail(`The service answered HTTP ${status}`, `It answered: ${excerpt(answer)}`);
}

function read<T>(
	context: BulkSmsFunctions,
	answer: HttpAnswer,
	reader: (body: string) => T,
	policy: CallPolicy,
): T {
	try {
		return reader(answer.body);
	} catch (error) {
		// The readers throw only ResponseShapeError, whose message says what is wrong.
		throw unreadable(context, answer, policy, (error as ResponseShapeError).message);
	}
}

function unreadable(
	context: BulkSmsFunctions,
	answer: HttpAnswer,
	policy: CallPolicy,
	why: string,
): NodeApiError {
	const ErrorClass = errorClassFor(policy, answer.statusCode);
	return new ErrorClass(context.getNode(), { status: answer.statusCode } as JsonObject, {
		message: `The service's answer could not be read: ${why}`,
		description: `HTTP ${answer.statusCode}, body starts: ${excerpt(answer)}`,
		httpCode: String(answer.statusCode),
		itemIndex: policy.itemIndex,
	});
}

/**
 * The password and the Basic token: what must never reach an error, even echoed by a proxy,
 * also as a form, a URL or a JSON string would write the password.
 */
function secretsOf({ username, password }: ICredentialDataDecryptedObject): string[] {
	const secret = String(password ?? '');
	if (secret === '') return [];
	const basic = Buffer.from(`${String(username ?? '')}:${secret}`).toString('base64');
	const written = [encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)];
	// Longest first, so that a longer form is blanked whole rather than around a shorter one.
	return [...new Set([basic, secret, ...written])].sort((a, b) => b.length - a.length);
}

/** A short, single-line view of a body for error messages, secrets blanked before it is cut. */
function excerpt({ body, secrets }: HttpAnswer): string {
	let text = body;
	for (const secret of secrets) text = text.split(secret).join('***');
	const line = text.replace(/\s+/g, ' ').trim();
	if (line === '') return '(empty)';
	return line.length > 120 ? `${line.slice(0, 120)}…` : line;
}
