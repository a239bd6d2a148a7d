/**
 * Ids are carried as strings of digits from the wire to the output and back, never as numbers:
 * they exceed 2^53. This file holds the one reader of ids, for what users type and for what the
 * service answers alike, so that both always agree on what an id is.
 */
import { excerpt } from './values';

/** The interface: batch_id is an integer of up to 19 digits. */
export const BATCH_ID_MAX_DIGITS = 19;

/** Why a value is not an id; each caller words it for its reader (a user or a log). */
export type IdFault =
	| { fault: 'missing' }
	| { fault: 'empty' }
	| { fault: 'not digits' }
	| { fault: 'rounded' }
	| { fault: 'too long'; digits: number };

const MISSING: IdFault = { fault: 'missing' };
const EMPTY: IdFault = { fault: 'empty' };
const NOT_DIGITS: IdFault = { fault: 'not digits' };
const ROUNDED: IdFault = { fault: 'rounded' };

/**
 * An id exactly as written: a string of digits (trimmed, leading zeros kept), a safe integer,
 * or a bigint. A number beyond 2^53 was rounded before it got here, so it is refused.
 * gateway_session_id is read this way: its size is not given, and nothing is asked by it.
 */
export function idDigits(value: unknown): string | IdFault {
	if (typeof value === 'string') {
		const text = value.trim();
		if (text === '') return EMPTY;
		return allDigits(text) ? text : NOT_DIGITS;
	}
	if (typeof value === 'number') {
		if (Number.isSafeInteger(value) && value >= 0) return String(value);
		return Number.isInteger(value) && value > 0 ? ROUNDED : NOT_DIGITS;
	}
	if (typeof value === 'bigint') return value >= 0n ? value.toString() : NOT_DIGITS;
	return value === undefined || value === null ? MISSING : NOT_DIGITS;
}

/**
 * A loop, not /^\d+$/: on a hostile answer's id of millions of digits the regular expression
 * runs out of backtracking stack ("Maximum call stack size exceeded").
 */
function allDigits(text: string): boolean {
	for (let at = 0; at < text.length; at++) {
		const code = text.charCodeAt(at);
		if (code < 48 || code > 57) return false;
	}
	return true;
}

/**
 * A batch id in the service's own form. The service reads batch_id as an integer, so "0123"
 * and "123" are one batch: the form it writes itself has no leading zeros ("0" stays "0"),
 * taken from the digits, never through a number. Carrying this form everywhere means the
 * trigger watches such ids once, and a summary names the same id as its reports.
 * More than 19 significant digits is not a batch id of this interface.
 */
export function batchIdDigits(value: unknown): string | IdFault {
	const digits = idDigits(value);
	if (typeof digits !== 'string') return digits;
	let first = 0;
	while (first < digits.length - 1 && digits.charCodeAt(first) === 48) first++;
	const canonical = digits.slice(first);
	if (canonical.length > BATCH_ID_MAX_DIGITS)
		return { fault: 'too long', digits: canonical.length };
	return canonical;
}

/** A batch id a user gave (a parameter, an expression, a watched list), worded for them. */
export type BatchIdReading = { batchId: string } | { problem: string; hint: string };

const HINT = 'Use the batch_id that Send returned, as text, e.g. {{ $json.batch_id }}.';

export function readBatchId(value: unknown): BatchIdReading {
	const read = batchIdDigits(value);
	if (typeof read === 'string') return { batchId: read };
	return {
		problem: userProblem(read, value),
		hint: read.fault === 'rounded' ? ROUNDED_HINT : HINT,
	};
}

const ROUNDED_HINT = `Ids longer than 15 digits do not survive as numbers. ${HINT}`;

function userProblem(read: IdFault, value: unknown): string {
	switch (read.fault) {
		case 'missing':
		case 'empty':
			return 'The Batch ID is empty';
		case 'rounded':
			return `Batch ID ${String(value)} arrived as a number and may have lost digits`;
		case 'too long':
			return (
				`${shown(value)} is not a batch ID: it has ${read.digits} digits, ` +
				`more than the ${BATCH_ID_MAX_DIGITS} the service uses`
			);
		default:
			return `${shown(value)} is not a batch ID: it must be digits only`;
	}
}

/** What the user gave, short enough for a message; never converted blindly (null prototypes). */
function shown(value: unknown): string {
	if (typeof value === 'string') return `"${excerpt(value.trim())}"`;
	if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') {
		return String(value);
	}
	if (Array.isArray(value)) return 'A list';
	return typeof value === 'object' ? 'An object' : `A ${typeof value}`;
}
