/**
 * Expressions that read nothing of the item, so that n8n gives every item the same value:
 * `{{ $execution.id }}`, `{{ $now.plus({ days: 1 }) }}`, `spring-{{ $today.toISODate() }}`,
 * `{{ $workflow.name }}`, `{{ $vars.campaign }}`. Send has n8n evaluate such a parameter once,
 * for the first item, and gives every item that value (itemReader.ts, parameterReader).
 *
 * What it buys: n8n evaluates an expression for every item, with the cost per item that
 * jsonExpressions.ts describes, even when the value cannot differ from one item to the next.
 *
 * The decision is taken from the code alone, and conservatively. The code of each `{{ … }}` is
 * read as JavaScript tokens (string and template literals whole), and it is the same for every
 * item only when
 * - every name it reads is a value of the run: `$execution`, `$workflow`, `$now`, `$today`,
 *   `$vars`, `$env`, `DateTime`, or `true`, `false`, `null`, `undefined` (a name after `.` or
 *   `?.` is a property of what comes before it; a name between `{` or `,` and `:` is the key
 *   of an object literal);
 * - it changes nothing (no `=`, `+=`, `++`, …) and reaches no property whose value differs from
 *   one call to the next or that writes: `randomItem`, `customData` (which n8n's `$execution`
 *   shares between items), a name starting with `__`, `constructor`, `prototype`;
 * - it names no property by a value (`a[x]`, `a?.[x]`, `a?.()`, a tagged template), and holds
 *   nothing the tokens alone cannot place: a regular expression, a comment, `${…}` in a
 *   template, `;`, `=>`, `...`, a backslash, a character outside ASCII outside a string.
 * Anything else is left to n8n, item by item. `$now`, `$today` and `DateTime.now()` are read
 * once, as the run reads its parameters, where n8n reads the clock again for every item.
 *
 * Held equal to n8n's evaluator by test/bulkSms/jsonExpressions.property.test.ts (generated
 * parameters over generated items through n8n's engine, the clock stopped by the test so that
 * every item reads the same instant) and, for the isolate engine `n8n start` uses, by
 * e2e/jsonExpressions.e2e.ts.
 */
import { templateParts } from './expressionTemplate';

/** The names an expression may read and still be the same for every item. */
const VALUES_OF_THE_RUN = new Set([
	'$execution',
	'$workflow',
	'$now',
	'$today',
	'$vars',
	'$env',
	'DateTime',
	'true',
	'false',
	'null',
	'undefined',
]);

/** Properties that differ from call to call, write, or that n8n guards. */
const UNSTABLE_PROPERTIES = new Set(['randomItem', 'customData', 'constructor', 'prototype']);

/** Punctuators of an expression that reads and changes nothing. */
const OPERATORS = new Set([
	...['===', '!==', '==', '!=', '<=', '>=', '<', '>', '&&', '||', '??', '!', '?', ':'],
	...['+', '-', '*', '/', '%', '**', '&', '|', '^', '~', '<<', '>>', '>>>'],
	...['.', '?.', ',', '(', ')', '[', ']', '{', '}'],
]);

type Kind = 'name' | 'number' | 'string' | 'template' | 'punctuator';

interface Token {
	kind: Kind;
	text: string;
}

/**
 * One token: spaces, a name, a number, a string or template literal, or a punctuator (the
 * longest JavaScript has at that place, so that `++`, `=>` or `/*` is seen as itself).
 */
const TOKEN = new RegExp(
	[
		/([ \t\r\n]+)/,
		/([A-Za-z_$][\w$]*)/,
		/((?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)(?![\w$])/,
		/('[^'\r\n]*'|"[^"\r\n]*")/,
		/(`[^`]*`)/,
		/(>>>=|\.\.\.|===|!==|\*\*=|<<=|>>=|>>>|&&=|\|\|=|\?\?=|=>|==|!=|<=|>=|&&|\|\||\?\?|\?\.(?!\d)|\+\+|--|\/\/|\/\*|[-+*/%&|^]=|\*\*|<<|>>|[{}()[\];,<>+\-*/%&|^!~?:=.@#])/,
	]
		.map((part) => part.source)
		.join('|'),
	'y',
);

const KINDS: ReadonlyArray<Kind | 'space'> = [
	'space',
	'name',
	'number',
	'string',
	'template',
	'punctuator',
];

/** Whether n8n gives the parameter (as saved in the workflow) the same value for every item. */
export function isSameForEveryItem(raw: unknown): boolean {
	const parts = templateParts(raw);
	if (parts === undefined) return false;
	return parts.every((part) => 'text' in part || codeIsSameForEveryItem(part.code));
}

function codeIsSameForEveryItem(code: string): boolean {
	const tokens = tokensOf(code);
	return (
		tokens !== undefined &&
		tokens.every((token, at) => isAllowed(token, tokens[at - 1], tokens[at + 1]))
	);
}

/** The tokens of the code, spaces left out; undefined where something is not a token. */
function tokensOf(code: string): Token[] | undefined {
	const tokens: Token[] = [];
	TOKEN.lastIndex = 0;
	while (TOKEN.lastIndex < code.length) {
		const match = TOKEN.exec(code);
		if (match === null) return undefined;
		const group = match.findIndex((text, index) => index > 0 && text !== undefined);
		const kind = KINDS[group - 1];
		if (kind !== 'space') tokens.push({ kind, text: match[group] });
	}
	return tokens;
}

function isAllowed(token: Token, before: Token | undefined, after: Token | undefined): boolean {
	switch (token.kind) {
		case 'name':
			if (is(before, '.') || is(before, '?.')) return isStableProperty(token.text);
			if ((is(before, '{') || is(before, ',')) && is(after, ':')) return true;
			return VALUES_OF_THE_RUN.has(token.text);
		case 'number':
		case 'string':
			return true;
		case 'template':
			// `${…}` holds code; a template after a value calls that value.
			return !token.text.includes('${') && !mayEndValue(before);
		case 'punctuator':
			if (!OPERATORS.has(token.text)) return false;
			// After a value, `[` reads a property by a value; elsewhere `/` starts a regular expression.
			if (token.text === '[') return !mayEndValue(before);
			if (token.text === '/') return endsValue(before);
			if (token.text === '?.') return after?.kind === 'name';
			return true;
	}
}

function isStableProperty(name: string): boolean {
	return !UNSTABLE_PROPERTIES.has(name) && !name.startsWith('__');
}

/** Whether the token surely ends a value: a name, a literal, `)` or `]`. */
function endsValue(token: Token | undefined): boolean {
	if (token === undefined) return false;
	return token.kind !== 'punctuator' || token.text === ')' || token.text === ']';
}

/** Whether the token may end a value: also `}`, which ends an object literal or a block. */
function mayEndValue(token: Token | undefined): boolean {
	return endsValue(token) || is(token, '}');
}

function is(token: Token | undefined, punctuator: string): boolean {
	return token?.kind === 'punctuator' && token.text === punctuator;
}
