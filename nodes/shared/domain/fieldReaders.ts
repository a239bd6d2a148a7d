/**
 * One reader per field kind of the service's answers (boolean, count, number, batch id, id,
 * phone number, status code, text), each accepting JSON's and XML's spelling of it and saying
 * what is wrong by the field's name and the value's kind, never its content.
 */
import { batchIdDigits, BATCH_ID_MAX_DIGITS, idDigits, type IdFault } from './batchId';
import { isRecord } from './values';

/**
 * A field that is not as the interface says. The readers name only the field; where it sits
 * (which report, which answer) is worded by the caller, and only when reading fails.
 */
export class FieldProblem extends Error {
	constructor(
		readonly field: string | undefined,
		/** Follows the location: ' is missing', ': expected ...'. */
		readonly detail: string,
	) {
		super(detail);
		this.name = 'FieldProblem';
	}
}

export function isAbsent(value: unknown): boolean {
	return value === undefined || value === null;
}

export function record(value: unknown): Record<string, unknown> {
	if (isRecord(value)) return value;
	throw new FieldProblem(undefined, `: expected an object, got ${kind(value)}`);
}

export function required(body: Record<string, unknown>, field: string): unknown {
	const value = body[field];
	if (isAbsent(value)) throw new FieldProblem(field, ' is missing');
	return value;
}

export function readBoolean(value: unknown, field: string): boolean {
	if (typeof value === 'boolean') return value;
	if (typeof value === 'string') {
		const word = value.trim().toLowerCase();
		if (word === 'true') return true;
		if (word === 'false') return false;
	}
	throw new FieldProblem(field, `: expected true or false, got ${kind(value)}`);
}

export function readCount(value: unknown, field: string): number {
	const count = readInteger(value, field);
	if (count < 0) throw new FieldProblem(field, ': expected a count, got a negative number');
	return count;
}

/**
 * Counts and network ids written as text (XML) are short; a longer text is not one of them,
 * and is never given to a regular expression, which could run out of stack on megabytes.
 */
const MAX_NUMBER_TEXT = 64;

/** remaining_credits: an integer per the interface, but a fractional balance is still a balance. */
export function readNumber(value: unknown, field: string): number {
	const number =
		typeof value === 'string' &&
		value.length <= MAX_NUMBER_TEXT &&
		/^\s*-?\d+(\.\d+)?\s*$/.test(value)
			? Number(value)
			: value;
	if (typeof number === 'number' && Number.isFinite(number)) return number;
	throw new FieldProblem(field, `: expected a number, got ${kind(value)}`);
}

export function readInteger(value: unknown, field: string): number {
	if (isAbsent(value)) throw new FieldProblem(field, ' is missing');
	const number =
		typeof value === 'string' && value.length <= MAX_NUMBER_TEXT && /^\s*-?\d+\s*$/.test(value)
			? Number(value)
			: value;
	if (typeof number === 'number' && Number.isSafeInteger(number)) return number;
	throw new FieldProblem(field, `: expected an integer, got ${kind(value)}`);
}

/** batch_id, by the same reader as a batch id a user gives: the service's form, 19 digits. */
export function readBatchIdField(value: unknown, field: string): string {
	const read = batchIdDigits(value);
	if (typeof read === 'string') return read;
	throw idProblem(read, value, field);
}

/** gateway_session_id: digits exactly as written, of any length. */
export function readIdField(value: unknown, field: string): string {
	const read = idDigits(value);
	if (typeof read === 'string') return read;
	throw idProblem(read, value, field);
}

function idProblem(read: IdFault, value: unknown, field: string): FieldProblem {
	switch (read.fault) {
		case 'missing':
			return new FieldProblem(field, ' is missing');
		case 'rounded':
			return new FieldProblem(
				field,
				': the id was already rounded (beyond 2^53); parse the body losslessly',
			);
		case 'too long':
			return new FieldProblem(
				field,
				`: expected at most ${BATCH_ID_MAX_DIGITS} digits, got ${read.digits}`,
			);
		default:
			return new FieldProblem(field, `: expected an id made of digits, got ${kind(value)}`);
	}
}

/** An MSISDN is text: `007` keeps its zeros. A JSON number is accepted only when exact. */
export function readDigitsText(value: unknown, field: string): string {
	if (typeof value === 'string') {
		const text = value.trim();
		if (text !== '') return text;
	} else if (typeof value === 'number' && Number.isSafeInteger(value)) {
		return String(value);
	} else if (isAbsent(value)) {
		throw new FieldProblem(field, ' is missing');
	}
	throw new FieldProblem(field, `: expected a phone number, got ${kind(value)}`);
}

export function readCode(value: unknown, field: string): string {
	if (isAbsent(value)) throw new FieldProblem(field, ' is missing');
	const code = readText(value, field);
	if (code === '') throw new FieldProblem(field, ' is empty');
	return code;
}

export function readText(value: unknown, field: string): string {
	if (typeof value === 'string') return value.trim();
	throw new FieldProblem(field, `: expected text, got ${kind(value)}`);
}

/** Describes a wrong value by its kind only: bodies may hold personal data. */
export function kind(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'a list';
	if (typeof value === 'string') return value.trim() === '' ? 'empty text' : 'text';
	if (typeof value === 'number') return Number.isInteger(value) ? 'a number' : 'a fraction';
	return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
