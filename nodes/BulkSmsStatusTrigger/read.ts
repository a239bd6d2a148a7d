/**
 * What a status callback carries, read without configuration: the interface leaves the callback's
 * form open (docs/interface.md, 6.2), so every form a provider plausibly sends is read, each with the same
 * reader of one delivery report as Get Status (ids exact, the date read once).
 */
import { readBody } from '../shared/domain/body';
import { BodyError } from '../shared/domain/bodyError';
import { REPORT_FIELDS } from '../shared/domain/fields';
import {
	readDeliveryReport,
	readStatusResponse,
	ResponseShapeError,
	type RawReport,
} from '../shared/domain/responses';

export interface CallbackRequest {
	/** The body exactly as received ('' when there is none). */
	body: string;
	/** Query parameters (a GET callback carries its report there). */
	query: Record<string, unknown>;
}

export type CallbackReading = { reports: RawReport[] } | { problem: string };

export function readCallback(request: CallbackRequest): CallbackReading {
	try {
		return { reports: readReports(request) };
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
	throw new ResponseShapeError(
		`the XML root is <${root}>, not <delivery_report>, <sms_get_status> or <reports>`,
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
