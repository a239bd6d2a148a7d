/**
 * Every failure the transport reports, worded once: what happened and what to do. Each
 * error is built by `failure`, which blanks the account's secrets out of every text it holds.
 */
import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { describeDuration, describeSize } from './limits';
import { redirectTarget } from './redirect';
import { excerpt } from './excerpts';
import { answerKind, isPage, mayHaveBeenTaken, neverSent, type AnswerKind } from './failureKinds';
import { blankSecrets, withoutUserinfo } from './secrets';

/**
 * A send that failed after the service may have taken it: the connection broke after the
 * request was sent, a 5xx other than 503, an answer too slow or too large, or a 2xx that could
 * not be read. Never resent.
 */
export class SendOutcomeUnknownError extends NodeApiError {}

/** Who a failure is reported for, and what it must not reveal. */
export interface Reporter {
	node: INode;
	itemIndex?: number;
	/** A send (never repeated unless certainly not taken), or a read of one batch's reports. */
	call: { kind: 'send' } | { kind: 'status'; batchId: string };
	/** The Base URL as it may be shown: without a user:password part. */
	shownBaseUrl: string;
	/** The path of the request under the Base URL, e.g. /api/sms/send. */
	path: string;
	secrets: readonly string[];
}

/** An answer as the errors quote it. */
export interface QuotedAnswer {
	statusCode: number;
	body: string;
	headers?: IDataObject;
}

interface Wording {
	message: string;
	description: string;
}

const UNKNOWN_OUTCOME =
	'The service may or may not have accepted the batch, so it was not sent again. Check your message log or the service before resending these destinations.';

const BASE_URL_HINT = 'the Base URL must be the Bulk SMS service address, without /api/sms';

/** The one place an error leaves the transport: every text blanked, the right class chosen. */
function failure(
	r: Reporter,
	wording: Wording,
	details: { outcomeUnknown: boolean; statusCode?: number; context: JsonObject },
): NodeApiError {
	const blank = (text: string) => blankSecrets(text, r.secrets);
	const context = Object.fromEntries(
		Object.entries(details.context).map(([key, value]) => [
			key,
			typeof value === 'string' ? blank(value) : value,
		]),
	) as JsonObject;
	const ErrorClass =
		r.call.kind === 'send' && details.outcomeUnknown ? SendOutcomeUnknownError : NodeApiError;
	return new ErrorClass(r.node, context, {
		message: blank(wording.message),
		description: blank(wording.description),
		httpCode: details.statusCode === undefined ? undefined : String(details.statusCode),
		itemIndex: r.itemIndex,
	});
}

/**
 * A failure said again where it stops a node, with what only the node knows (which batch, what
 * became of the run, that the account is at fault): a new error of the same class, with the
 * same HTTP code, details and item, built once with all it carries. The error the transport
 * made is never changed after the fact.
 */
export function restated<E extends NodeApiError | NodeOperationError>(
	cause: E,
	said: { message?: string; description?: string; context?: IDataObject },
): E {
	const message = said.message ?? cause.message;
	const description = said.description ?? cause.description ?? undefined;
	const itemIndex = cause.context.itemIndex as number | undefined;
	const error =
		cause instanceof NodeApiError
			? new (cause.constructor as typeof NodeApiError)(
					cause.node,
					(cause.errorResponse ?? {}) as JsonObject,
					{ message, description, httpCode: cause.httpCode ?? undefined, itemIndex },
				)
			: new NodeOperationError(cause.node, message, { description, itemIndex });
	Object.assign(error.context, said.context);
	return error as E;
}

/** A non-2xx answer, after any retries. */
export function statusFailure(r: Reporter, answer: QuotedAnswer): NodeApiError {
	const status = answer.statusCode;
	const quoted = excerpt(answer.body, r.secrets);
	const kind = answerKind(answer.body);
	return failure(r, statusWording(r, answer, quoted, kind), {
		outcomeUnknown: mayHaveBeenTaken(status),
		statusCode: status,
		context: { status, excerpt: quoted, answer: kind },
	});
}

function statusWording(
	r: Reporter,
	answer: QuotedAnswer,
	quoted: string,
	kind: AnswerKind,
): Wording {
	const status = answer.statusCode;
	if (status >= 300 && status < 400) return redirectWording(r, status, answer.headers?.location);
	if (status === 401 || status === 403) {
		return {
			message: `The service refused the credentials (HTTP ${status})`,
			description: 'Check the username and password in the Bulk SMS credential.',
		};
	}
	if (status === 404) return notFoundWording(r, kind);
	if (status === 429) {
		return {
			message: 'The service is rate limiting requests (HTTP 429)',
			description: 'Wait a little and run again, or send fewer requests at once.',
		};
	}
	if (status >= 500) {
		return {
			message: `The service failed (HTTP ${status})`,
			description: `It answered: ${quoted}`,
		};
	}
	return { message: `The service answered HTTP ${status}`, description: `It answered: ${quoted}` };
}

/**
 * A 3xx, never followed (the interface never redirects): where it pointed, and that the
 * credentials stayed. For a send a 302 or 303 leaves the outcome unknown (see mayHaveBeenTaken).
 */
function redirectWording(r: Reporter, status: number, location: unknown): Wording {
	const target = redirectTarget(location, r.shownBaseUrl, r.path);
	const unknown = r.call.kind === 'send' && mayHaveBeenTaken(status);
	const outcome = unknown ? ", so the send's outcome is unknown" : '';
	const why = unknown
		? `A ${status} can answer a request the server has carried out. ${UNKNOWN_OUTCOME} `
		: '';
	if (target === undefined) {
		return {
			message: `The Base URL redirects (HTTP ${status}) without a usable address: not followed${outcome}`,
			description: `${why}The Bulk SMS service never redirects. Check the Base URL in the Bulk SMS credential (now ${r.shownBaseUrl}): it must be the service's own address.`,
		};
	}
	return {
		message: `The Base URL redirects to ${target} (HTTP ${status}): not followed${outcome}`,
		description: `${why}The Bulk SMS service never redirects, so neither the request nor the credentials were sent there. If ${target} is your provider's service address, set the Base URL in the Bulk SMS credential to it (now ${r.shownBaseUrl}).`,
	};
}

/**
 * A 404 of a read means an unknown batch, or a Base URL that is not the service: both are said,
 * unless the answer is a web page or text (no answer of the service), which only the path gets.
 */
function notFoundWording(r: Reporter, kind: AnswerKind): Wording {
	if (r.call.kind === 'status' && !isPage(kind)) {
		return {
			message: `Not found (HTTP 404): either the service does not know batch ${r.call.batchId}, or the Base URL points somewhere that is not the Bulk SMS service (it must be the address without /api/sms)`,
			description: `Use the batch_id that Send returned, as text, and check the Base URL in the Bulk SMS credential (now ${r.shownBaseUrl}).`,
		};
	}
	return {
		message: `Nothing answers at ${r.shownBaseUrl}${r.path} (HTTP 404): ${BASE_URL_HINT}`,
		description: 'Correct the Base URL in the Bulk SMS credential, e.g. https://sms.example.com.',
	};
}

export const UNREADABLE = "The service's answer could not be read: ";

/** A 2xx (or an error status) whose body the reader could not make sense of. */
export function unreadableAnswer(r: Reporter, answer: QuotedAnswer, why: string): NodeApiError {
	const status = answer.statusCode;
	const kind = answerKind(answer.body);
	return failure(
		r,
		{
			message: `${UNREADABLE}${kind === 'html' ? 'it is an HTML page' : why}`,
			description: `HTTP ${status}, body starts: ${excerpt(answer.body, r.secrets)}`,
		},
		{
			outcomeUnknown: mayHaveBeenTaken(status),
			statusCode: status,
			context: { status, answer: kind },
		},
	);
}

/** No complete answer within the total time allowed for one request. */
export function tooSlow(r: Reporter, limitMs: number): NodeApiError {
	const limit = describeDuration(limitMs);
	const wording =
		r.call.kind === 'send'
			? {
					message: `The service was too slow: no complete answer within ${limit}, so the send's outcome is unknown`,
					description: UNKNOWN_OUTCOME,
				}
			: {
					message: `The service was too slow: no complete answer within ${limit}`,
					description: `A request may take at most ${limit}, its answer included. Try again later; if it persists, check the service.`,
				};
	return failure(r, wording, { outcomeUnknown: true, context: { timeout_ms: limitMs } });
}

/** An answer larger than what is read; it was dropped at the cap. */
export function tooLarge(r: Reporter, statusCode: number, maxBytes: number): NodeApiError {
	const outcomeUnknown = mayHaveBeenTaken(statusCode);
	const unknown = r.call.kind === 'send' && outcomeUnknown;
	return failure(
		r,
		{
			message: `The service's answer is larger than ${describeSize(maxBytes)}: it was not read${unknown ? ", so the send's outcome is unknown" : ''}`,
			description: unknown
				? UNKNOWN_OUTCOME
				: `HTTP ${statusCode}. No answer of the Bulk SMS service is that large; check that the Base URL points at it.`,
		},
		{ outcomeUnknown, statusCode, context: { status: statusCode, max_bytes: maxBytes } },
	);
}

/** The request failed without an answer; only the error code travels on. */
export function networkFailure(r: Reporter, code: string | undefined): NodeApiError {
	const outcomeUnknown = !neverSent(code);
	const unknown = r.call.kind === 'send' && outcomeUnknown;
	const shown = code ?? '(none)';
	// n8n replaces a message that names a network code with its own generic text, so the
	// code goes into the description.
	const wording = unknown
		? {
				message: "The send's outcome is unknown: the connection broke after the request was sent",
				description: `Network error ${shown}. ${UNKNOWN_OUTCOME}`,
			}
		: {
				message: 'Cannot reach the Bulk SMS service',
				description: `Network error ${shown}. Check the Base URL in the credential and that the service is running.`,
			};
	// The raw error holds the request, Authorization included: it never travels on.
	return failure(r, wording, { outcomeUnknown, context: { network_error: code ?? 'none' } });
}

/** The credential's Base URL is not one: shown without any user:password part. */
export function badBaseUrl(
	node: INode,
	baseUrl: string,
	secrets: readonly string[],
	itemIndex: number,
): NodeOperationError {
	const shown = blankSecrets(withoutUserinfo(baseUrl), secrets).slice(0, 60);
	return new NodeOperationError(
		node,
		'The Base URL in the Bulk SMS credential is not an http(s) address',
		{
			description: `Set it to the service address, e.g. https://sms.example.com (got "${shown}").`,
			itemIndex,
		},
	);
}

export function unknownTimeZone(node: INode, timeZone: string, itemIndex: number) {
	return new NodeOperationError(
		node,
		`Unknown time zone "${timeZone}" in the Bulk SMS credential`,
		{
			description: 'Use an IANA time zone name such as UTC, Europe/London or America/New_York.',
			itemIndex,
		},
	);
}
