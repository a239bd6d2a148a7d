/**
 * What a status callback carries, read without configuration: the interface leaves the callback's
 * form open (docs/interface.md, 6.2), so every form a provider plausibly sends is read, each with the same
 * reader of one delivery report as Get Status (ids exact, the date read once).
 */
import { readBody } from '../shared/domain/body';
import { BodyError } from '../shared/domain/bodyError';
import { REPORT_FIELDS } from '../shared/domain/fields';
import { MAX_MSISDN_DIGITS, MIN_MSISDN_DIGITS } from '../shared/domain/msisdn';
import {
	readDeliveryReport,
	readStatusResponse,
	ResponseShapeError,
	type RawReport,
} from '../shared/domain/responses';
import { excerpt } from '../shared/domain/values';

export interface CallbackRequest {
	/** The body exactly as received ('' when there is none). */
	body: string;
	/** Query parameters (a GET callback carries its report there). */
	query: Record<string, unknown>;
}

/** Reports, or why the callback is not read: not a report (400) or too many at once (413). */
export type CallbackReading = { reports: RawReport[] } | { problem: string } | { tooMany: string };

/**
 * A callback carries one report, or a few: 1,000 is far more than a provider groups into one
 * call, and reads in milliseconds (docs/decisions.md, "What a callback may hold").
 */
export const DEFAULT_MAX_REPORTS = 1000;
export const MAX_MAX_REPORTS = 100_000;

/**
 * Room for one report in the body: about 200 bytes as the interface writes it, so 4 KiB leaves
 * space for fields of the provider's own and indentation. A body larger than its reports could
 * fill is refused before it is parsed.
 */
const BYTES_PER_REPORT = 4096;

export function readCallback(
	request: CallbackRequest,
	maxReports = DEFAULT_MAX_REPORTS,
): CallbackReading {
	if (request.body.length > maxReports * BYTES_PER_REPORT) {
		return { tooMany: tooLarge(request.body.length, maxReports) };
	}
	const reading = readChecked(request);
	if ('reports' in reading && reading.reports.length > maxReports) {
		return { tooMany: tooManyReports(reading.reports.length, maxReports) };
	}
	return reading;
}

function tooLarge(length: number, maxReports: number): string {
	const size = length.toLocaleString('en-US');
	return `the callback's body (${size} characters) is larger than Max Reports per Callback (${maxReports}) can fill: send fewer reports per callback, or raise that option`;
}

function tooManyReports(count: number, maxReports: number): string {
	return `the callback carries ${count} reports, more than Max Reports per Callback (${maxReports}): send fewer reports per callback, or raise that option`;
}

function readChecked(request: CallbackRequest): { reports: RawReport[] } | { problem: string } {
	try {
		const reports = readReports(request);
		reports.forEach(checkReport);
		return { reports };
	} catch (error) {
		// Only the readers' own sentences are shown: another error could quote the body.
		if (error instanceof ResponseShapeError) return { problem: error.message };
		if (error instanceof BodyError) return { problem: `the body cannot be read: ${error.message}` };
		return { problem: 'the body could not be read' };
	}
}

function readReports({ body, query }: CallbackRequest): RawReport[] {
	const text = body.trim();
	if (text !== '') return readBodyText(text);
	if (!hasReportField(query)) {
		throw new ResponseShapeError(
			'the callback has no body and no report fields in its query (batch_id, msisdn, status, ...)',
		);
	}
	return [readDeliveryReport(query, 'query')];
}

function readBodyText(text: string): RawReport[] {
	if (!/^[[{<]/.test(text)) {
		if (/^[\w.%+-]+=/.test(text)) return readForm(text);
		throw new ResponseShapeError('the body is neither JSON, XML nor form fields');
	}
	const parsed = readBody(text);
	if (parsed.format === 'json') return readJson(parsed.data);
	return readXml(parsed.root ?? '', parsed.data);
}

/** One report, a list of them, or `{reports: [...]}` as get_status writes them. */
function readJson(data: unknown): RawReport[] {
	if (Array.isArray(data)) return data.map((item, i) => readDeliveryReport(item, `[${i}]`));
	if (typeof data === 'object' && data !== null && 'reports' in data)
		return readStatusResponse(data);
	return [readDeliveryReport(data, 'report')];
}

/** `<delivery_report>` alone, `<sms_get_status><reports>...` as get_status, or `<reports>`. */
function readXml(root: string, data: unknown): RawReport[] {
	// The body reader gives delivery_report as a list wherever it is, the root included.
	if (root === 'delivery_report') {
		const items = Array.isArray(data) ? data : [data];
		return items.map((item, i) => readDeliveryReport(item, `delivery_report[${i}]`));
	}
	if (root === 'sms_get_status') return readStatusResponse(data);
	if (root === 'reports') return readStatusResponse({ reports: data });
	// The name is the caller's text: only its start is shown (as in the log).
	throw new ResponseShapeError(
		`the XML root is <${excerpt(root)}>, not <delivery_report>, <sms_get_status> or <reports>`,
	);
}

/** application/x-www-form-urlencoded: one report, a field each (the first of repeated ones). */
function readForm(text: string): RawReport[] {
	const fields: Record<string, string> = {};
	for (const [name, value] of new URLSearchParams(text)) fields[name] ??= value;
	if (!hasReportField(fields))
		throw new ResponseShapeError(
			'the form has none of the report fields (batch_id, msisdn, status, ...)',
		);
	return [readDeliveryReport(fields, 'form')];
}

/** A GET or a form without any of the report's fields is not a report at all. */
function hasReportField(fields: Record<string, unknown>): boolean {
	return REPORT_FIELDS.some((field) => fields[field] !== undefined);
}

// ---------------------------------------------------------------- what each field may be

/** A status code as the interface writes them (7 letters), with room for a provider's own. */
const STATUS_CODE = /^[A-Z][A-Z0-9_]{0,15}$/;
const MSISDN = new RegExp(`^\\+?\\d{${MIN_MSISDN_DIGITS},${MAX_MSISDN_DIGITS}}$`);
/** gateway_session_id is an integer of unstated size: 40 digits hold any 128-bit one. */
const MAX_SESSION_ID_DIGITS = 40;

/**
 * The fields a caller could fill with anything, checked for what they are, so that nothing
 * unbounded is emitted. A status code the interface does not list is taken, as pending, the
 * way Get Status reads it (status.ts): a provider's new code is news, not an attack.
 */
function checkReport(report: RawReport, index: number): void {
	const where = `reports[${index}]`;
	if (!MSISDN.test(report.msisdn)) {
		throw new ResponseShapeError(
			`${where}.msisdn: expected a phone number of ${MIN_MSISDN_DIGITS} to ${MAX_MSISDN_DIGITS} digits`,
		);
	}
	if (!STATUS_CODE.test(report.status)) {
		throw new ResponseShapeError(
			`${where}.status: expected a status code such as DELIVRD or ENROUTE (letters, at most 16)`,
		);
	}
	if (report.gateway_session_id.length > MAX_SESSION_ID_DIGITS) {
		throw new ResponseShapeError(
			`${where}.gateway_session_id: expected at most ${MAX_SESSION_ID_DIGITS} digits`,
		);
	}
}
