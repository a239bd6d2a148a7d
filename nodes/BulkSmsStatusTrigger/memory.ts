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

export interface Sifted<R extends ReportKey = RawReport> {
	/** Reports not seen before, in the order received. */
	fresh: R[];
	/** Seen before (same batch, message, number and status). */
	repeated: number;
	/** A non-final status of a message already seen final: it arrived late, out of order. */
	late: number;
	/** How many keys this callback added to the memory (not counting those seen again). */
	added: number;
	/** The memory after this callback. */
	memory: string[];
}

/** The fields that name one status of one message. */
export type ReportKey = Pick<RawReport, 'batch_id' | 'gateway_session_id' | 'msisdn' | 'status'>;

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
function messageKey(report: ReportKey): string {
	return `${report.batch_id}|${report.gateway_session_id}|${report.msisdn}`;
}

function keysOf(report: ReportKey): { status: string; final?: string } {
	const status = hashed(`${messageKey(report)}|${report.status}`);
	return isFinal(report.status) ? { status, final: finalKey(report) } : { status };
}

/** Stored once a message was seen final, whatever its status: a later non-final one is late. */
function finalKey(report: ReportKey): string {
	return hashed(`${messageKey(report)}|final`);
}

/** The memory as stored, in order; anything else found there is dropped. */
function recall(stored: unknown): Map<string, true> {
	const keys = Array.isArray(stored) ? stored.filter((k) => typeof k === 'string') : [];
	return new Map(keys.map((key) => [key, true]));
}

/** Marks a key as seen now: re-inserted last, so that the most recently seen is forgotten last. */
function touch(seen: Map<string, true>, key: string): boolean {
	const known = seen.delete(key);
	seen.set(key, true);
	return !known;
}

function bounded(seen: Map<string, true>, limit: number): string[] {
	const keys = [...seen.keys()];
	return keys.length > limit ? keys.slice(keys.length - limit) : keys;
}

/** Splits a callback's reports into news and repeats, against the stored memory. */
export function sift<R extends ReportKey>(
	stored: unknown,
	reports: readonly R[],
	limit: number,
): Sifted<R> {
	const seen = recall(stored);
	const result: Sifted<R> = { fresh: [], repeated: 0, late: 0, added: 0, memory: [] };
	for (const report of reports) {
		const keys = keysOf(report);
		if (seen.has(keys.status)) result.repeated++;
		else if (!keys.final && seen.has(finalKey(report))) result.late++;
		else result.fresh.push(report);
		if (touch(seen, keys.status)) result.added++;
		if (keys.final && touch(seen, keys.final)) result.added++;
	}
	result.memory = bounded(seen, limit);
	return result;
}

/** The memory with these reports remembered as seen (what an execution that emitted them stores). */
export function remember(stored: unknown, reports: readonly ReportKey[], limit: number): string[] {
	return sift(stored, reports, limit).memory;
}
