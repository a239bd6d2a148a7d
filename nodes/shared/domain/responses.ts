/**
 * Turns a parsed body (JSON or XML, see body.ts) into typed values. XML gives every field as
 * text and JSON gives numbers and booleans, so each reader accepts both spellings.
 */
import { readBody } from './body';
import { BodyError } from './bodyError';
import { readWallTime } from './dates';
import {
	FieldProblem,
	isAbsent,
	kind,
	readBatchIdField,
	readBoolean,
	readCode,
	readCount,
	readDigitsText,
	readIdField,
	readInteger,
	readNumber,
	readText,
	record,
	required,
} from './fieldReaders';
import type { WallTime } from './wallClock';
import { attempt, excerpt, isRecord } from './values';

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
	const read = attempt(() => readBody(body));
	if ('thrown' in read) {
		// BodyError says what the body is: cut short, nested too deep, neither JSON nor XML...
		throw read.thrown instanceof BodyError
			? new ResponseShapeError(read.thrown.message)
			: read.thrown;
	}
	const parsed = read.value;
	// Another document (<error>, <html>) must not pass for an empty answer.
	if (parsed.root !== undefined && parsed.root !== xmlRoot) {
		// The name is the answer's own text: only its start is shown.
		throw new ResponseShapeError(`the XML root is <${excerpt(parsed.root)}>, not <${xmlRoot}>`);
	}
	return parsed.data;
}

// ---------------------------------------------------------------- the send answer

const SEND = 'send response';

export function readSendResponse(data: unknown): SendResponse {
	const read = attempt(() => sendFields(data));
	if ('value' in read) return read.value;
	throw located(read.thrown, (field) => (field === undefined ? SEND : `${SEND}: ${field}`));
}

function sendFields(data: unknown): SendResponse {
	const body = record(data);
	const accepted = readBoolean(required(body, 'accepted'), 'accepted');
	// A refusal is read even when a gateway leaves out the counts: its reason is what matters,
	// and calling it unreadable would wrongly suggest the batch may have been sent.
	const present = (field: string) => accepted || !isAbsent(body[field]);
	const result: SendResponse = {
		accepted,
		batch_size: present('batch_size') ? readCount(required(body, 'batch_size'), 'batch_size') : 0,
		receive_updates: present('receive_updates')
			? readBoolean(required(body, 'receive_updates'), 'receive_updates')
			: false,
	};
	if (present('remaining_credits')) {
		result.remaining_credits = readNumber(required(body, 'remaining_credits'), 'remaining_credits');
	}
	// Kept on a refusal too: a gateway that names a batch may have taken it (the caller says so).
	const batchId = isAbsent(body.batch_id) ? undefined : readBatchIdField(body.batch_id, 'batch_id');
	// Without a batch id an accepted batch can never be followed: that is a broken answer.
	if (accepted && batchId === undefined) {
		throw new FieldProblem('accepted', ' is true but batch_id is missing');
	}
	if (batchId !== undefined) result.batch_id = batchId;
	const error = isAbsent(body.error) ? undefined : readText(body.error, 'error');
	if (error !== undefined && error !== '') result.error = error;
	return result;
}

// ---------------------------------------------------------------- the status answer

export function readStatusResponse(data: unknown): RawReport[] {
	// An empty XML root (`<sms_get_status/>`) parses to '': a batch with no reports yet.
	if (data === '') return [];
	if (!isRecord(data)) {
		throw new ResponseShapeError(`status response: expected an object, got ${kind(data)}`);
	}
	// Without the field this is some other document (an HTML page, an error object): reading
	// it as "no reports" would hide the failure.
	if (!('reports' in data)) throw new ResponseShapeError('status response has no reports field');
	const items = reportList(data.reports);
	const reports: RawReport[] = new Array<RawReport>(items.length);
	let index = 0;
	// One guard for the whole list: a report's location is worded only when one fails.
	const read = attempt(() => {
		for (; index < items.length; index++) reports[index] = reportFields(items[index]);
	});
	if ('thrown' in read) throw located(read.thrown, reportLocation(`reports[${index}]`));
	return reports;
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

/** One delivery report (docs/interface.md, 2.3), JSON or XML spelling; also what a status callback carries. */
export function readDeliveryReport(item: unknown, where: string): RawReport {
	const read = attempt(() => reportFields(item));
	if ('value' in read) return read.value;
	throw located(read.thrown, reportLocation(where));
}

function reportLocation(where: string): (field: string | undefined) => string {
	return (field) => (field === undefined ? where : `${where}.${field}`);
}

function reportFields(item: unknown): RawReport {
	const report = record(item);
	// ENROUTE messages have no date yet; some bodies omit it, others send it empty.
	const date = isAbsent(report.delivery_date)
		? ''
		: readText(report.delivery_date, 'delivery_date');
	// Checked at the edge, so a bad date is an unreadable answer like any other broken field.
	const wall = readWallTime(date);
	if ('problem' in wall) throw new FieldProblem('delivery_date', `: ${wall.problem}`);
	return {
		batch_id: readBatchIdField(report.batch_id, 'batch_id'),
		msisdn: readDigitsText(report.msisdn, 'msisdn'),
		// Upper-cased once here, so filters, counts and outcomes all see the same code.
		status: readCode(report.status, 'status').toUpperCase(),
		network_id: readInteger(report.network_id, 'network_id'),
		gateway_session_id: readIdField(report.gateway_session_id, 'gateway_session_id'),
		delivery_date: date,
		delivery_wall: wall.wall,
	};
}

/** A field reader's problem, said with where the field sits (which report, which answer). */
function located(thrown: unknown, where: (field: string | undefined) => string): unknown {
	if (!(thrown instanceof FieldProblem)) return thrown;
	return new ResponseShapeError(`${where(thrown.field)}${thrown.detail}`);
}
