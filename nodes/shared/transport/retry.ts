/**
 * When a call is tried again. A send is not idempotent, so it is repeated only when the
 * service certainly did not take it; a read is repeated after any transient failure.
 */
import type { IDataObject } from 'n8n-workflow';

import type { TransportLimits } from './limits';
import type { RequestPace } from './pace';
import type { Attempt, AttemptFailure } from './request';

const MAX_ATTEMPTS = 3;
const MAX_RETRY_WAIT_MS = 30_000;

export interface RetryPolicy {
	idempotent: boolean;
	pace: RequestPace;
	limits: TransportLimits;
}

/**
 * Runs `attempt` until its answer or failure is not one to retry, or the attempts run out. A 429 or 503 holds every request sharing the pace.
 */
export async function withRetries(
	attempt: () => Promise<Attempt>,
	policy: RetryPolicy,
): Promise<Attempt> {
	for (let number = 1; ; number++) {
		await policy.pace.ready();
		const outcome = await attempt();
		if (number >= MAX_ATTEMPTS) return outcome;
		if ('failure' in outcome) {
			if (!isRetryableFailure(outcome.failure, policy.idempotent)) return outcome;
			policy.pace.hold(backoffMs(number, policy.limits));
		} else {
			const { statusCode, headers } = outcome.answer;
			if (!isRetryableStatus(statusCode, policy.idempotent)) return outcome;
			policy.pace.hold(retryAfterMs(headers, number, policy.limits));
		}
	}
}

/**
 * Connection refused means nothing was written: safe for any call. Resets and timeouts only
 * for reads. An answer too slow or too large is never tried again: the next would be too.
 */
function isRetryableFailure(failure: AttemptFailure, idempotent: boolean): boolean {
	if (failure.kind !== 'network') return false;
	const code = failure.code ?? '';
	if (code === 'ECONNREFUSED') return true;
	return idempotent && ['ECONNRESET', 'ETIMEDOUT', 'ECONNABORTED', 'EPIPE'].includes(code);
}

/** 429 and 503 are answered before the service does the work; other 5xx only for reads. */
function isRetryableStatus(status: number, idempotent: boolean): boolean {
	if (status === 429 || status === 503) return true;
	return idempotent && (status === 502 || status === 504 || status === 500);
}

function backoffMs(attempt: number, limits: TransportLimits): number {
	return limits.firstRetryMs * 2 ** (attempt - 1);
}

/** Retry-After in seconds or as an HTTP date, at most 30 s; without one, the backoff. */
function retryAfterMs(headers: IDataObject, attempt: number, limits: TransportLimits): number {
	const header = String(headers['retry-after'] ?? '').trim();
	const seconds = Number(header);
	if (header !== '' && Number.isFinite(seconds)) {
		return Math.min(Math.max(seconds, 0) * 1000, MAX_RETRY_WAIT_MS);
	}
	const date = Date.parse(header);
	if (!Number.isNaN(date)) return Math.min(Math.max(date - Date.now(), 0), MAX_RETRY_WAIT_MS);
	return backoffMs(attempt, limits);
}
