/**
 * The values Send writes in its record (record.ts): what "the same send" is. A number and a text
 * of a campaign: the same Send node (the record is the node's), the same campaign name (empty
 * unless the user names one), the same message text as sent, the same number. Validity and the
 * other options do not make a message another one: the person would read the same text twice.
 */
import { createHash } from 'crypto';

/** The campaign and the text, once per send: n8n hashes every value again, whatever its length. */
export function sendKeyOf(campaign: string, text: string): string {
	return createHash('sha256')
		.update(JSON.stringify([campaign, text]))
		.digest('base64');
}

/** Handed to the service (or about to be); given back if it certainly did not take it. */
export function claimKey(send: string, msisdn: string): string {
	return `claim ${send} ${msisdn}`;
}

/** Accepted by the service. */
export function acceptedKey(send: string, msisdn: string): string {
	return `accepted ${send} ${msisdn}`;
}

export const USED = 'used ';

/** The record was used in this hour (hours since 1970, UTC). */
export function usedKey(hour: number): string {
	return `${USED}${hour}`;
}
