/**
 * The fast XML path: a linear scanner for answers of the service's own flat shape. It must give
 * exactly what the general path (xmlGeneral.ts: validated, then fast-xml-parser) gives, and
 * gives way to it (undefined) on any doubt: attributes, comments, CDATA, other entities, repeated
 * or unknown fields, a line break inside a value. Held equal by the differential test in
 * test/domain/body.property.test.ts ("flat XML scanner: ≥ 10,000 generated answers against
 * fast-xml-parser"), which also checks that every plain answer is taken here. What it buys: the
 * service's XML read at close to the cost of its JSON, which the general path's validation and
 * parser do not come near on a campaign-sized answer (docs/benchmarks.md, "Parsing").
 */
import { REPORT_FIELDS, SEND_FIELDS } from './fields';
import type { XmlDocument } from './xmlGeneral';
import { attempt } from './values';

/** Thrown inside the scanner when the text is not plainly the flat shape. */
const DOUBT = new Error('not the flat shape');

/** Only the declaration the service writes: anything else goes the general way. */
const DECLARATION =
	/<\?xml version="1\.[0-9]"(?: encoding="[A-Za-z][A-Za-z0-9._-]*")?(?: standalone="(?:yes|no)")?[ \t\r\n]*\?>/y;
const PREDEFINED_ENTITY = /&(lt|gt|amp|apos|quot);/g;
const OTHER_AMPERSAND = /&(?!(?:lt|gt|amp|apos|quot);)/;
const ENTITY_TEXT: Record<string, string> = {
	lt: '<',
	gt: '>',
	amp: '&',
	apos: "'",
	quot: '"',
};

const LESS_THAN = 60;
const GREATER_THAN = 62;
const SLASH = 47;

/**
 * sms_get_status > reports > delivery_report* > (leaf fields), or sms_send > (leaf fields),
 * no attributes, comments, CDATA, other entities or repeated fields. Undefined on any doubt.
 * Exported for the differential tests.
 */
export function readFlatXml(text: string): XmlDocument | undefined {
	const read = attempt(() => new FlatXmlScanner(text).document());
	if ('value' in read) return read.value;
	if (read.thrown === DOUBT) return undefined;
	throw read.thrown;
}

class FlatXmlScanner {
	private pos = 0;
	/** No entity and no line break anywhere: then values need no look of their own. */
	private readonly plainValues: boolean;
	/** The field names met at each place of the previous element, tried first at the next. */
	private readonly lastOrder: string[] = [];

	constructor(private readonly text: string) {
		this.plainValues = text.indexOf('&') === -1 && text.indexOf('\r') === -1;
	}

	document(): XmlDocument {
		if (this.text.startsWith('<?xml', 0)) {
			DECLARATION.lastIndex = 0;
			if (!DECLARATION.test(this.text)) throw DOUBT;
			this.pos = DECLARATION.lastIndex;
			this.skipSpace();
		}
		const result = this.rootElement();
		this.skipSpace();
		if (this.pos !== this.text.length) throw DOUBT;
		return result;
	}

	private rootElement(): XmlDocument {
		for (const root of ['sms_get_status', 'sms_send']) {
			if (this.emptyElement(root)) return { root, data: '' };
		}
		if (this.openTag('sms_get_status')) {
			return { root: 'sms_get_status', data: this.statusContent() };
		}
		if (this.openTag('sms_send')) {
			return { root: 'sms_send', data: this.fields(SEND_FIELDS, 'sms_send') };
		}
		throw DOUBT;
	}

	/** After <sms_get_status>: nothing, <reports/>, or <reports> with delivery reports. */
	private statusContent(): unknown {
		this.skipSpace();
		if (this.closeTag('sms_get_status')) return '';
		let data: unknown;
		if (this.emptyElement('reports')) {
			data = { reports: '' };
		} else if (this.openTag('reports')) {
			const reports = this.reportList();
			data = { reports: reports.length === 0 ? '' : { delivery_report: reports } };
		} else {
			throw DOUBT;
		}
		this.skipSpace();
		if (!this.closeTag('sms_get_status')) throw DOUBT;
		return data;
	}

	private reportList(): unknown[] {
		const reports: unknown[] = [];
		for (;;) {
			this.skipSpace();
			if (this.closeTag('reports')) return reports;
			if (!this.openTag('delivery_report')) throw DOUBT;
			reports.push(this.fields(REPORT_FIELDS, 'delivery_report'));
		}
	}

	/** Leaf children up to </parent>: an object of their texts, or '' when there are none. */
	private fields(names: readonly string[], parent: string): unknown {
		const text = this.text;
		const record: Record<string, string> = {};
		let count = 0;
		for (;;) {
			this.skipSpace();
			if (this.closeTag(parent)) return count === 0 ? '' : record;
			const name = this.fieldName(names, count);
			const after = this.pos + 1 + name.length;
			let value = '';
			if (text.charCodeAt(after) === GREATER_THAN) {
				const valueEnd = text.indexOf('<', after + 1);
				if (valueEnd === -1) throw DOUBT;
				value = this.value(text.slice(after + 1, valueEnd));
				this.pos = valueEnd;
				if (!this.closeTag(name)) throw DOUBT;
			} else if (text.charCodeAt(after) === SLASH && text.charCodeAt(after + 1) === GREATER_THAN) {
				// <name/> is an empty field.
				this.pos = after + 2;
			} else {
				throw DOUBT;
			}
			// A repeated field becomes a list in the general path.
			if (record[name] !== undefined) throw DOUBT;
			record[name] = value;
			count++;
		}
	}

	/** The known field whose tag opens here: the one met in this place last time, first. */
	private fieldName(names: readonly string[], index: number): string {
		const guess = this.lastOrder[index];
		if (guess !== undefined && this.fieldTagAt(guess)) return guess;
		for (const name of names) {
			if (this.fieldTagAt(name)) {
				this.lastOrder[index] = name;
				return name;
			}
		}
		throw DOUBT;
	}

	/** `<name>` or `<name/>` starts here (a longer name or an attribute does not). */
	private fieldTagAt(name: string): boolean {
		const text = this.text;
		const end = text.charCodeAt(this.pos + 1 + name.length);
		return (
			text.charCodeAt(this.pos) === LESS_THAN &&
			(end === GREATER_THAN || end === SLASH) &&
			text.startsWith(name, this.pos + 1)
		);
	}

	/** Trimmed as fast-xml-parser trims; only the five predefined entities are decoded here. */
	private value(raw: string): string {
		const trimmed = raw.trim();
		if (this.plainValues) return trimmed;
		// fast-xml-parser turns line breaks inside a value into '\n': its way, not ours.
		if (trimmed.indexOf('\r') !== -1) throw DOUBT;
		if (trimmed.indexOf('&') === -1) return trimmed;
		if (OTHER_AMPERSAND.test(trimmed)) throw DOUBT;
		return trimmed.replace(PREDEFINED_ENTITY, (_, name: string) => ENTITY_TEXT[name]);
	}

	/** Steps over `<name>` when it comes next. */
	private openTag(name: string): boolean {
		return this.step(1, name, GREATER_THAN);
	}

	/** Steps over `</name>` when it comes next. */
	private closeTag(name: string): boolean {
		return this.text.charCodeAt(this.pos + 1) === SLASH && this.step(2, name, GREATER_THAN);
	}

	/** Steps over `<name/>` when it comes next. */
	private emptyElement(name: string): boolean {
		return (
			this.text.charCodeAt(this.pos + name.length + 2) === GREATER_THAN && this.step(1, name, SLASH)
		);
	}

	/** '<', `name` at `offset` from it, then `last`: steps past `last` when so. */
	private step(offset: number, name: string, last: number): boolean {
		const text = this.text;
		const at = this.pos;
		if (text.charCodeAt(at) !== LESS_THAN) return false;
		if (text.charCodeAt(at + offset + name.length) !== last) return false;
		if (!text.startsWith(name, at + offset)) return false;
		this.pos = at + offset + name.length + 1 + (last === SLASH ? 1 : 0);
		return true;
	}

	/** XML's own whitespace only: anything else between elements goes the general way. */
	private skipSpace(): void {
		const text = this.text;
		let pos = this.pos;
		for (;;) {
			const c = text.charCodeAt(pos);
			if (c !== 32 && c !== 10 && c !== 13 && c !== 9) break;
			pos++;
		}
		this.pos = pos;
	}
}
