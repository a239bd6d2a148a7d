/**
 * What the trigger remembers of the reports it was called back with, so that a repeated one (at
 * least once delivery) is acknowledged without starting the workflow again, and an ENROUTE that
 * comes after its message's final status is left out: one short key per (message, status), and
 * one "final" key per message seen final. Every report a callback carries is remembered, emitted
 * or filtered out. Plain functions; where each memory lives is said in knownReports.ts (this
 * process) and webhook.ts (the workflow's static data).
 */
import { createHash } from 'crypto';

import type { RawReport } from '../shared/domain/responses';
import { isFinal } from '../shared/domain/status';

export const DEFAULT_MEMORY = 10_000;
export const MAX_MEMORY = 100_000;

/** The fields that name one status of one message. */
export type ReportKey = Pick<RawReport, 'batch_id' | 'gateway_session_id' | 'msisdn' | 'status'>;

/** Every key is this long: the stored memory is their concatenation, without separators. */
export const KEY_LENGTH = 16;

/**
 * 96 bits of SHA-256 in base64url: a collision among 100,000 keys has odds of about 1 in 10^19,
 * and 16 characters keep the stored memory at 16 bytes a key instead of ~60 for the plain text.
 */
function hashed(text: string): string {
	return createHash('sha256').update(text).digest('base64url').slice(0, KEY_LENGTH);
}

/**
 * The message is named by its gateway_session_id as well as its number: a batch may hold the same
 * number twice (two messages), and those must not pass for repeats of each other.
 */
function messageOf(report: ReportKey): string {
	return `${report.batch_id}|${report.gateway_session_id}|${report.msisdn}`;
}

/** This status of this message: seen once, a repeat ever after. */
export function statusKey(report: ReportKey): string {
	return hashed(`${messageOf(report)}|${report.status}`);
}

/** Stored once a message was seen final, whatever its status: a later non-final one is late. */
function finalKey(report: ReportKey): string {
	return hashed(`${messageOf(report)}|final`);
}

export interface Sifted<R extends ReportKey> {
	/** Reports not seen before, in the order received. */
	fresh: R[];
	/** Seen before (same batch, message, number and status), in memory or earlier in the callback. */
	repeated: number;
	/** A non-final status of a message already seen final: it arrived late, out of order. */
	late: number;
	/** The keys this callback adds to the memory, each once: its reports' news, wanted or not. */
	keys: string[];
}

/** Splits a callback's reports into news, repeats and late ones, against what is `known`. */
export function sift<R extends ReportKey>(
	reports: readonly R[],
	known: (key: string) => boolean,
): Sifted<R> {
	const added = new Set<string>();
	const seen = (key: string) => added.has(key) || known(key);
	const sifted: Sifted<R> = { fresh: [], repeated: 0, late: 0, keys: [] };
	for (const report of reports) {
		const status = statusKey(report);
		const final = isFinal(report.status) ? finalKey(report) : undefined;
		if (seen(status)) sifted.repeated++;
		else if (!final && seen(finalKey(report))) sifted.late++;
		else sifted.fresh.push(report);
		for (const key of final ? [status, final] : [status]) {
			if (!seen(key)) added.add(key);
		}
	}
	sifted.keys = [...added];
	return sifted;
}
