/**
 * Response bodies. Ids are carried as strings of digits and written into JSON as bare numbers of
 * full precision, as the interface says ("a JSON number"): a client that uses JSON.parse will see them
 * corrupted, which is the point.
 */
import { XMLBuilder } from 'fast-xml-parser';

export type Format = 'json' | 'xml';

export const CONTENT_TYPES: Record<Format, string> = {
	json: 'application/json; charset=utf-8',
	xml: 'application/xml; charset=utf-8',
};

/** A value whose digits go into the JSON text as they are (an integer id). */
export class RawNumber {
	constructor(readonly digits: string) {
		if (!/^-?\d+$/.test(digits)) throw new Error(`not an integer: ${digits}`);
	}
}

export type Value = string | number | boolean | RawNumber;
/** Ordered fields, because the interface lists them in an order and XML element order is visible. */
export type Fields = Array<[string, Value]>;

function jsonValue(value: Value): string {
	return value instanceof RawNumber ? value.digits : JSON.stringify(value);
}

export function jsonObject(fields: Fields): string {
	return `{${fields.map(([k, v]) => `${JSON.stringify(k)}:${jsonValue(v)}`).join(',')}}`;
}

const builder = new XMLBuilder({
	format: false,
	suppressEmptyNode: false,
	ignoreAttributes: false,
});
const PROLOG = '<?xml version="1.0" encoding="UTF-8"?>';

function xmlChildren(fields: Fields): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [k, v] of fields) out[k] = v instanceof RawNumber ? v.digits : String(v);
	return out;
}

/** Send response: a flat JSON object, or XML root sms_send with one child per field (docs/interface.md 4.1). */
export function renderSend(fields: Fields, format: Format): string {
	if (format === 'json') return jsonObject(fields);
	return PROLOG + builder.build({ sms_send: xmlChildren(fields) });
}

/** Status response: {reports:[...]}, or sms_get_status > reports > delivery_report* (docs/interface.md 4.2). */
export function renderStatus(reports: Fields[], format: Format): string {
	if (format === 'json') return `{"reports":[${reports.map(jsonObject).join(',')}]}`;
	const body = { sms_get_status: { reports: { delivery_report: reports.map(xmlChildren) } } };
	return PROLOG + builder.build(body);
}

/** Error bodies (401, 400, 404, 429, ...) in the negotiated format; the interface leaves them open. */
export function renderError(message: string, format: Format): string {
	if (format === 'json') return jsonObject([['error', message]]);
	return PROLOG + builder.build({ error: message });
}
