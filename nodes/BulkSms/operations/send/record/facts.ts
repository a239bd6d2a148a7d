/**
 * Every value Send's record writes in n8n's deduplication store of the node. n8n keeps each as a
 * hash, so a value is a fact that is there or not: it can be asked about, never read back.
 *
 * A campaign's facts are written under its name (`<c>`: `slot <n>` or `key <Campaign Key>`) and
 * say where its run got to in its plan: the run's requests in order, each named by the hash of
 * every request up to it (`<h>`, positions.ts), so that a fact of request i holds only for a run
 * whose first i requests are the same.
 *
 *   slot <n>                          slot n holds a campaign (one of SLOTS)
 *   opened <c>                        the campaign is in the record
 *   last <n>                          the Send node's last run without a Campaign Key was in slot n
 *   family <c> <h of request 0>       the first request of the campaign's plan
 *   at <c> <K>                        every request before position K is settled (K: a checkpoint)
 *   through <c> <h of request K-1>    the same, for the plan that has those K requests
 *   dirty <c> <h of request K-1>      the STEP requests before K have exception facts, kept
 *   claim <c> <h>, pos <c> <i>        request i is handed to the service, or about to be
 *   accepted <c> <h>                  the service accepted it
 *   unknown <why> <c> <h>             its outcome is unknown, and why (an exception fact)
 *   released <c> <h>                  it certainly was not sent (an exception fact)
 *   complete <c>                      every request of the campaign's plan is settled
 *   kept <hour>                       a run left something to keep in that hour (store.ts)
 *   looked <hour>                     a run looked in that hour whether the record is stale
 *
 * A request is settled once its outcome is written, or once the run held it back. Only the facts
 * of the last two segments of STEP requests are kept request by request; behind a checkpoint
 * only the exception facts stay, so what a call rewrites does not grow with what was sent.
 */
import { createHash } from 'crypto';

/**
 * Requests between two checkpoints. Small, because n8n reads, rewrites and traces the whole record
 * on every call: 32 keeps a call at about 200 values, and the record's cost on n8n's main thread
 * a third of what 128 cost (docs/benchmarks.md, "Send's record"). A run claims up to two segments
 * ahead, so 2 · STEP must stay above the largest Concurrent Requests (32).
 */
export const STEP = 32;

/** How many campaigns without a Campaign Key a Send node keeps at once (running or to resume). */
export const SLOTS = 64;

/**
 * Why a request's outcome is unknown, as the record keeps it: the service answered with an error,
 * the connection broke, the service refused it but returned a batch id, or no answer was written
 * (the run that claimed it stopped first). Each has its sentence (output.ts).
 */
export const UNKNOWN_CAUSES = ['answer', 'connection', 'refusedWithBatch', 'unanswered'] as const;
export type UnknownCause = (typeof UNKNOWN_CAUSES)[number];

export const slotOf = (n: number) => `slot ${n}`;
export const lastOf = (n: number) => `last ${n}`;
export const keyCampaign = (key: string) => `key ${key}`;
export const opened = (c: string) => `opened ${c}`;
export const family = (c: string, first: string) => `family ${c} ${first}`;
export const at = (c: string, position: number) => `at ${c} ${position}`;
export const through = (c: string, h: string) => `through ${c} ${h}`;
export const dirty = (c: string, h: string) => `dirty ${c} ${h}`;
export const claim = (c: string, h: string) => `claim ${c} ${h}`;
export const pos = (c: string, position: number) => `pos ${c} ${position}`;
export const accepted = (c: string, h: string) => `accepted ${c} ${h}`;
export const unknown = (cause: UnknownCause, c: string, h: string) => `unknown ${cause} ${c} ${h}`;
export const released = (c: string, h: string) => `released ${c} ${h}`;
export const complete = (c: string) => `complete ${c}`;
export const kept = (hour: number) => `kept ${hour}`;
export const looked = (hour: number) => `looked ${hour}`;

/** The exception facts of a request: written once, kept behind checkpoints. */
export function exceptionsOf(c: string, h: string): string[] {
	return [released(c, h), ...UNKNOWN_CAUSES.map((cause) => unknown(cause, c, h))];
}

/** The hour of a time, as kept hours count them (hours since 1970, UTC). */
export function hourOf(time: number): number {
	return Math.floor(time / 3_600_000);
}

/** A short digest: n8n hashes every value again, so this only needs to tell plans apart. */
export function digest(text: string): string {
	return createHash('sha256').update(text).digest('base64url').slice(0, 24);
}
