/**
 * The trigger's memory of callbacks already seen, so that a repeated one (at least once delivery)
 * is acknowledged without starting the workflow again. It lives in the workflow's static data:
 * a list of short hashes, least recently seen first, bounded by the node's setting.
 */
import { createHash } from 'crypto';

import type { RawReport } from '../shared/domain/responses';
import { isFinal } from '../shared/domain/status';

export const DEFAULT_MEMORY = 10_000;
export const MAX_MEMORY = 100_000;

export interface Sifted {
	/** Reports not seen before, in the order received. */
	fresh: RawReport[];
	/** Seen before (same batch, message, number and status). */
	repeated: number;
	/** A non-final status of a message already seen final: it arrived late, out of order. */
	late: number;
	/** The memory after this callback; the same array when nothing changed. */
	memory: string[];
}

/**
 * 96 bits of SHA-256: a collision among 100,000 keys has odds of about 1 in 10^19, and 16 characters
 * keep the stored memory at ~19 bytes a report instead of ~60 for the plain key.
 */
function hashed(text: string): string {
	return createHash('sha256').update(text).digest('base64url').slice(0, 16);
}

/**
 * The message is named by its gateway_session_id as well as its number: a batch may hold the same
 * number twice (two messages), and those must not pass for repeats of each other.
 */
function messageKey(report: RawReport): string {
	return `${report.batch_id}|${report.gateway_session_id}|${report.msisdn}`;
}

export function sift(stored: unknown, reports: readonly RawReport[], limit: number): Sifted {
	const memory = Array.isArray(stored) ? stored.filter((k) => typeof k === 'string') : [];
	const seen = new Map<string, true>(memory.map((key) => [key, true]));
	const result: Sifted = { fresh: [], repeated: 0, late: 0, memory };
	let changed = false;
	const remember = (key: string) => {
		seen.delete(key); // re-inserted last: the most recently seen is forgotten last
		seen.set(key, true);
		changed = true;
	};
	for (const report of reports) {
		const key = hashed(`${messageKey(report)}|${report.status}`);
		const finalKey = hashed(`${messageKey(report)}|final`);
		if (seen.has(key)) result.repeated++;
		else if (!isFinal(report.status) && seen.has(finalKey)) result.late++;
		else result.fresh.push(report);
		remember(key);
		if (isFinal(report.status)) remember(finalKey);
	}
	if (!changed) return result;
	const keys = [...seen.keys()];
	result.memory = keys.length > limit ? keys.slice(keys.length - limit) : keys;
	return result;
}
