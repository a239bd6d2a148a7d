/**
 * The values Send writes in its record: facts that are there or not (n8n's store keeps hashes).
 * "The same send" is a campaign (campaign.ts), a text as sent and a number; validity and the other
 * options do not make a message another one: the person would read the same text twice.
 *
 *   claim <send> <number>            handed to the service, or about to be
 *   accepted <send> <number>         the service accepted it
 *   unknown <why> <send> <number>    the service's answer left its outcome unknown, and why
 *   kept <hour>                      a run left something to resume in this hour (store.ts)
 *
 * and of each request, named by its numbers in order, the same three, plus `split`: the request
 * did not go out whole (some of its numbers were held back), so only its numbers' facts tell.
 * A run that resumes with the same requests asks a request's few facts instead of each number's:
 * asking n8n's store about a value records it, and taking an absent one out again costs a search
 * of the whole record, so a request in doubt of 1,000 numbers costs four such searches, not 4,000.
 */
import { createHash } from 'crypto';

/** The campaign and the text, once per send: n8n hashes every value again, whatever its length. */
export function sendKeyOf(campaign: string, text: string): string {
	return createHash('sha256')
		.update(JSON.stringify([campaign, text]))
		.digest('base64');
}

/** Why a number's outcome is unknown, as the transport tells it: each has its sentence (output.ts). */
export const UNKNOWN_CAUSES = ['answer', 'connection', 'refusedWithBatch'] as const;
export type UnknownCause = (typeof UNKNOWN_CAUSES)[number];

/** What the record says of one number of one send. */
export interface NumberFacts {
	msisdn: string;
	claim: string;
	accepted: string;
	unknown: Record<UnknownCause, string>;
}

/** Built when needed, not kept: a campaign of 100,000 numbers would hold 500,000 more strings. */
export function factsOf(send: string, msisdn: string): NumberFacts {
	const unknown = {} as Record<UnknownCause, string>;
	for (const cause of UNKNOWN_CAUSES) unknown[cause] = `unknown ${cause} ${send} ${msisdn}`;
	return {
		msisdn,
		claim: `claim ${send} ${msisdn}`,
		accepted: `accepted ${send} ${msisdn}`,
		unknown,
	};
}

/** What the record says of one request as sent. */
export interface RequestFacts {
	claim: string;
	accepted: string;
	split: string;
	unknown: Record<UnknownCause, string>;
}

export function requestFactsOf(send: string, numbers: readonly string[]): RequestFacts {
	const request = createHash('sha256').update(numbers.join(',')).digest('base64');
	const { claim, accepted, unknown } = factsOf(send, `request ${request}`);
	return { claim, accepted, split: `split ${send} ${request}`, unknown };
}

const KEPT = 'kept ';

/** A run left something to resume in this hour (hours since 1970, UTC). */
export function keptHour(hour: number): string {
	return `${KEPT}${hour}`;
}

/** The hour of a time, as the kept hours count them. */
export function hourOf(time: number): number {
	return Math.floor(time / 3_600_000);
}
