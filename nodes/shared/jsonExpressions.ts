/**
 * A fast path for the expressions users write in a per-row parameter: those that only read the
 * input item's own JSON. `={{ $json.phone }}`, `={{ $json.contact.phone }}`,
 * `={{ $json["first name"] }}`, `={{ $json.phones[0] }}`, and text around such references
 * (`=Hi {{ $json.name }}, your code is {{ $json.code }}`) are resolved here, from the item,
 * to exactly what n8n's evaluator gives; anything else, or any value whose outcome is not
 * plain, is left to n8n (ASK_N8N), which then evaluates the parameter as always.
 *
 * What it buys: n8n evaluates an expression per item by building a data proxy and a sandboxed
 * global context for it (in `n8n start`, inside an isolate), which for a 100,000-row sheet is
 * most of the run (docs/benchmarks.md has the profiles); reading the field itself is a lookup.
 *
 * The rules it follows are n8n's (n8n-workflow's Expression and @n8n/tournament, 1.x and 2.x,
 * and the isolate engine of n8n 2.x):
 * - `$json` is the input item's JSON; a parameter that is one `{{ … }}` and nothing else gives
 *   the value itself, while text with references gives a string where each reference that is
 *   null, undefined, NaN or '' adds nothing and any other value adds String(value);
 * - a reference reads a plain object's own enumerable data, and a list's elements (an index past
 *   its end gives undefined, as a name the object does not have);
 * - n8n decides everything else: a name it refuses (`__proto__`, `constructor`, …: n8n's
 *   isSafeObjectProperty), a name of a prototype (`toString`, a list's `length`), a step past
 *   null or undefined, a value that is not a string, number, boolean or null (an object, a date;
 *   a list only of those, when it is the whole parameter), a backslash, `.constructor` anywhere.
 * Held equal to n8n's evaluator by test/bulkSms/jsonExpressions.property.test.ts, which resolves
 * generated parameters over generated items both ways through n8n's engine, and, for the isolate
 * engine `n8n start` uses by default, by e2e/jsonExpressions.e2e.ts.
 */
import { isSafeObjectProperty } from 'n8n-workflow';

import { templateParts } from './expressionTemplate';

/** What a fast expression returns when n8n must evaluate the parameter itself. */
export const ASK_N8N: unique symbol = Symbol('ask n8n');

/** The parameter's value for one item's JSON, or ASK_N8N. */
export type JsonExpression = (json: unknown) => unknown;

/** A piece of a template: text as written, or the keys of one `$json` reference. */
type Piece = string | readonly string[];

/** n8n refuses a parameter holding `.constructor`, wherever it is (n8n-workflow, expression.ts). */
const CONSTRUCTOR = /\.\s*constructor/;

/**
 * `$json` followed by one or more `.name`, `["text"]`, `['text']` or `[index]`, with spaces,
 * tabs or line breaks between them. No backslash can reach here (templateParts refuses them).
 */
const REFERENCE =
	/^[ \t\r\n]*\$json((?:[ \t\r\n]*(?:\.[ \t\r\n]*[A-Za-z_$][\w$]*|\[[ \t\r\n]*(?:"[^"\n\r\u2028\u2029]*"|'[^'\n\r\u2028\u2029]*'|0|[1-9]\d{0,8})[ \t\r\n]*\]))+)[ \t\r\n]*$/;
const ACCESSOR =
	/\.[ \t\r\n]*([A-Za-z_$][\w$]*)|\[[ \t\r\n]*(?:"([^"]*)"|'([^']*)'|(\d+))[ \t\r\n]*\]/g;

/**
 * The fast reader of a parameter as saved in the workflow, or undefined when it is not an
 * expression of the forms above (n8n evaluates it then, every item).
 */
export function compileJsonExpression(raw: unknown): JsonExpression | undefined {
	const pieces = parse(raw);
	if (pieces === undefined) return undefined;
	const [first] = pieces;
	// One reference and nothing else, not even a space: n8n gives its value as it is.
	if (pieces.length === 1 && typeof first !== 'string') {
		return (json) => whole(follow(json, first));
	}
	return (json) => {
		let text = '';
		for (const piece of pieces) {
			if (typeof piece === 'string') {
				text += piece;
				continue;
			}
			const value = follow(json, piece);
			if (!isPlainScalar(value)) return ASK_N8N;
			// As tournament joins a template's parts: null, undefined, NaN and '' add nothing.
			if (value || value === 0 || value === false) text += String(value);
		}
		return text;
	};
}

/** Text and references, as n8n splits them; undefined for anything n8n would read otherwise. */
function parse(raw: unknown): Piece[] | undefined {
	const parts = templateParts(raw);
	// `.constructor` makes n8n refuse the parameter.
	if (parts === undefined || CONSTRUCTOR.test(raw as string)) return undefined;
	const pieces: Piece[] = [];
	for (const part of parts) {
		if ('text' in part) {
			pieces.push(part.text);
			continue;
		}
		const keys = referenceKeys(part.code);
		if (keys === undefined) return undefined;
		pieces.push(keys);
	}
	return pieces;
}

/** The keys of `$json.a["b"][0]` (a, b, 0), or undefined when the code is anything else. */
function referenceKeys(code: string): string[] | undefined {
	const match = REFERENCE.exec(code);
	if (match === null) return undefined;
	const keys: string[] = [];
	for (const [, name, double, single, index] of match[1].matchAll(ACCESSOR)) {
		const key = name ?? double ?? single ?? index;
		// `$` alone is refused by n8n's sandbox; other names it refuses, n8n must refuse itself.
		if (key === '$' || !isSafeObjectProperty(key)) return undefined;
		keys.push(key);
	}
	return keys;
}

const { propertyIsEnumerable } = Object.prototype;
const INDEX = /^(?:0|[1-9]\d*)$/;

/** The value at the keys, as n8n reads it, or ASK_N8N where n8n could read otherwise. */
function follow(json: unknown, keys: readonly string[]): unknown {
	let value = json;
	for (const key of keys) {
		value = step(value, key);
		if (value === ASK_N8N) return ASK_N8N;
	}
	return value;
}

/**
 * One step, where n8n's two engines read alike: in-process, JavaScript reads the item itself; in
 * the isolate (`n8n start`), a name of the prototypes comes from the isolate's own, whatever the
 * item holds, and a list gives its elements in bounds and nothing else.
 */
function step(value: unknown, key: string): unknown {
	if (Array.isArray(value)) {
		const index = INDEX.test(key) ? Number(key) : -1;
		if (index >= 0 && index < value.length) return value[index] as unknown;
		return key in value ? ASK_N8N : undefined;
	}
	if (!isPlainObject(value) || key in Object.prototype) return ASK_N8N;
	if (propertyIsEnumerable.call(value, key)) return value[key];
	return key in value ? ASK_N8N : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
	if (typeof value !== 'object' || value === null) return false;
	const prototype = Object.getPrototypeOf(value) as unknown;
	return prototype === Object.prototype || prototype === null;
}

function isPlainScalar(value: unknown): boolean {
	const type = typeof value;
	return value == null || type === 'string' || type === 'number' || type === 'boolean';
}

/** A whole-parameter value: scalars, and lists of them, are what n8n gives; else n8n decides. */
function whole(value: unknown): unknown {
	if (isPlainScalar(value)) return value;
	if (!Array.isArray(value)) return ASK_N8N;
	for (let i = 0; i < value.length; i++) {
		const element: unknown = value[i];
		if (!(i in value) || element === undefined || !isPlainScalar(element)) return ASK_N8N;
	}
	return value;
}
