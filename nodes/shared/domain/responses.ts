/**
 * Turns a parsed body (JSON or XML, see body.ts) into typed values. XML gives every field as
 * text and JSON gives numbers and booleans, so each reader accepts both spellings.
 */
import { parseBody } from './body';
import { readWallTime, type WallTime } from './dates';

/** The body parsed but does not have the shape the interface describes. */
export class ResponseShapeError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'ResponseShapeError';
	}
}

export interface SendResponse {
	accepted: boolean;
	batch_id?: string;
	batch_size: number;
	receive_updates: boolean;
	/** Absent only on a refusal from a gateway that left it out. */
	remaining_credits?: number;
	error?: string;
}

export interface RawReport {
	batch_id: string;
	msisdn: string;
	status: string;
	network_id: number;
	gateway_session_id: string;
	/** As the service wrote it ('' while the message is not finalised). */
	delivery_date: string;
	/** The same date, read once at the edge; the zone is applied when it is shown. */
	delivery_wall: WallTime | null;
}

/** A whole send answer, from the body text: what the transport calls. */
export function readSendAnswer(body: string): SendResponse {
	return readSendResponse(parsedAs(body, 'sms_send'));
}

/** A whole get_status answer, from the body text: what the transport calls. */
export function readStatusAnswer(body: string): RawReport[] {
	return readStatusResponse(parsedAs(body, 'sms_get_status'));
}

/** The parsed data of a body, which must be JSON or XML with the expected root element. */
function parsedAs(body: string, xmlRoot: string): unknown {
	const parsed = parseBody(body);
	if (!parsed) throw new ResponseShapeError('it is neither JSON nor XML');
	// Another document (<error>, <html>) must not pass for an empty answer.
	if (parsed.root !== undefined && parsed.root !== xmlRoot) {
		throw new ResponseShapeError(`the XML root is <${parsed.root}>, not <${xmlRoot}>`);
	}
	return parsed.data;
}

export function readSendResponse(data: unknown): SendResponse {
	const body = record(data, 'send response');
	const accepted = readBoolean(body, 'accepted');
	// A refusal is read even when a gateway leaves out the counts: its reason is what matters,
	// and calling it unreadable would wrongly suggest the batch may have been sent.
	const present = (field: string) =>
		accepted || (body[field] !== undefined && body[field] !== null);
	const result: SendResponse = {
		accepted,
		batch_size: present('batch_size') ? readCount(body, 'batch_size') : 0,
		receive_updates: present('receive_updates') ? readBoolean(body, 'receive_updates') : false,
	};
	if (present('remaining_credits'))
		result.remaining_credits = readNumber(body, 'remaining_credits');
	const batchId = optional(body, 'batch_id', readId, 'send response: batch_id');
	// Without a batch id an accepted batch can never be followed: that is a broken answer.
	if (accepted && batchId === undefined) {
		throw new ResponseShapeError('send response: accepted is true but batch_id is missing');
	}
	if (batchId !== undefined) result.batch_id = batchId;
	const error = optional(body, 'error', readText, 'send response: error');
	if (error !== undefined && error !== '') result.error = error;
	return result;
}

export function readStatusResponse(data: unknown): RawReport[] {
	// An empty XML root (`<sms_get_status/>`) parses to '': a batch with no reports yet.
	if (data === '') return [];
	const body = record(data, 'status response');
	// Without the field this is some other document (an HTML page, an error object): reading
	// it as "no reports" would hide the failure.
	if (!('reports' in body)) throw new ResponseShapeError('status response has no reports field');
	return reportList(body.reports).map((item, index) =>
		readDeliveryReport(item, `reports[${index}]`),
	);
}

/** JSON: `reports: [...]`; XML: `reports: { delivery_report: [...] }`; empty: `''`/absent. */
function reportList(reports: unknown): unknown[] {
	if (reports === undefined || reports === null || reports === '') return [];
	if (Array.isArray(reports)) return reports;
	if (typeof reports === 'object') {
		const inner = (reports as Record<string, unknown>).delivery_report;
		if (inner === undefined || inner === null || inner === '') return [];
		return Array.isArray(inner) ? inner : [inner];
	}
	throw new ResponseShapeError(`status response: reports should be a list, got ${kind(reports)}`);
}

/** One delivery report (seed 2.3), JSON or XML spelling; also what a status callback carries. */
export function readDeliveryReport(item: unknown, where: string): RawReport {
	const report = record(item, where);
	const at = (field: string) => `${where}.${field}`;
	return {
		batch_id: readId(report.batch_id, at('batch_id')),
		msisdn: readDigitsText(report.msisdn, at('msisdn')),
		// Upper-cased once here, so filters, counts and outcomes all see the same code.
		status: readCode(report.status, at('status')).toUpperCase(),
		network_id: readInteger(report.network_id, at('network_id')),
		gateway_session_id: readId(report.gateway_session_id, at('gateway_session_id')),
		// ENROUTE messages have no date yet; some bodies omit it, others send it empty.
		...readDate(
			optional(report, 'delivery_date', readText, at('delivery_date')) ?? '',
			at('delivery_date'),
		),
	};
}

/** Checked at the edge, so a bad date is an unreadable answer like any other broken field. */
function readDate(text: string, where: string): Pick<RawReport, 'delivery_date' | 'delivery_wall'> {
	const read = readWallTime(text);
	if ('problem' in read) throw new ResponseShapeError(`${where}: ${read.problem}`);
	return { delivery_date: text, delivery_wall: read.wall };
}

// ---------------------------------------------------------------- field readers

type Reader<T> = (value: unknown, where: string) => T;

function record(value: unknown, where: string): Record<string, unknown> {
	if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
		return value as Record<string, unknown>;
	}
	throw new ResponseShapeError(`${where}: expected an object, got ${kind(value)}`);
}

function optional<T>(
	body: Record<string, unknown>,
	field: string,
	read: Reader<T>,
	label: string,
): T | undefined {
	const value = body[field];
	if (value === undefined || value === null) return undefined;
	return read(value, label);
}

function required(body: Record<string, unknown>, field: string): unknown {
	const value = body[field];
	if (value === undefined || value === null) {
		throw new ResponseShapeError(`send response: ${field} is missing`);
	}
	return value;
}

function readBoolean(body: Record<string, unknown>, field: string): boolean {
	const value = required(body, field);
	if (typeof value === 'boolean') return value;
	if (typeof value === 'string') {
		const word = value.trim().toLowerCase();
		if (word === 'true') return true;
		if (word === 'false') return false;
	}
	throw new ResponseShapeError(
		`send response: ${field}: expected true or false, got ${kind(value)}`,
	);
}

function readCount(body: Record<string, unknown>, field: string): number {
	const value = readInteger(required(body, field), `send response: ${field}`);
	if (value < 0)
		throw new ResponseShapeError(
			`send response: ${field}: expected a count, got a negative number`,
		);
	return value;
}

/** remaining_credits: an integer per the interface, but a fractional balance is still a balance. */
function readNumber(body: Record<string, unknown>, field: string): number {
	const value = required(body, field);
	const number =
		typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value;
	if (typeof number === 'number' && Number.isFinite(number)) return number;
	throw new ResponseShapeError(`send response: ${field}: expected a number, got ${kind(value)}`);
}

function readInteger(value: unknown, where: string): number {
	if (value === undefined || value === null) throw new ResponseShapeError(`${where} is missing`);
	const number = typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;
	if (typeof number === 'number' && Number.isSafeInteger(number)) return number;
	throw new ResponseShapeError(`${where}: expected an integer, got ${kind(value)}`);
}

/** Ids exceed 2^53: they are carried as strings of digits, never as numbers. */
function readId(value: unknown, where: string): string {
	if (value === undefined || value === null) throw new ResponseShapeError(`${where} is missing`);
	if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
	if (typeof value === 'string' && /^\d+$/.test(value.trim())) return value.trim();
	if (typeof value === 'number' && Number.isInteger(value) && value > 0) {
		throw new ResponseShapeError(
			`${where}: the id was already rounded (beyond 2^53); parse the body losslessly`,
		);
	}
	throw new ResponseShapeError(`${where}: expected an id made of digits, got ${kind(value)}`);
}

/** An MSISDN is text: `007` keeps its zeros. A JSON number is accepted only when exact. */
function readDigitsText(value: unknown, where: string): string {
	if (value === undefined || value === null) throw new ResponseShapeError(`${where} is missing`);
	if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
	if (typeof value === 'string' && value.trim() !== '') return value.trim();
	throw new ResponseShapeError(`${where}: expected a phone number, got ${kind(value)}`);
}

function readCode(value: unknown, where: string): string {
	const code = readText(value, where);
	if (code === '') throw new ResponseShapeError(`${where} is empty`);
	return code;
}

function readText(value: unknown, where: string): string {
	if (typeof value === 'string') return value.trim();
	throw new ResponseShapeError(`${where}: expected text, got ${kind(value)}`);
}

/** Describes a wrong value by its kind only: bodies may hold personal data. */
function kind(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'a list';
	if (typeof value === 'string') return value.trim() === '' ? 'empty text' : 'text';
	if (typeof value === 'number') return Number.isInteger(value) ? 'a number' : 'a fraction';
	return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
