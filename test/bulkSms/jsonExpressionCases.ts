/**
 * Generated items and parameters for the fast path of `$json` expressions
 * (nodes/shared/jsonExpressions.ts), shared by the differential tests against n8n's evaluator:
 * test/bulkSms/jsonExpressions.property.test.ts (n8n's engine, the legacy expression engine) and
 * e2e/jsonExpressions.e2e.ts (n8n 2.41.1's isolate engine, its default, under its own Node).
 * Two sets: hostile ones, to find where the two could differ, and a sheet's rows with what users
 * write for them, where the fast path must answer nearly always.
 */
import fc from 'fast-check';

// Generated items: keys that n8n treats apart (prototype names, refused names, `$`), values of
// every kind, among them some no JSON holds (a date, undefined, an object without prototype).
const KEYS = [
	'a',
	'b',
	'phone',
	'first name',
	'0',
	'1',
	'length',
	'toString',
	'valueOf',
	'hasOwnProperty',
	'constructor',
	'__proto__',
	'prototype',
	'$',
	'é',
	'名前',
	'x.y',
	'a]b',
	"it's",
	'say "hi"',
	'{{',
	'}}',
	'',
	' ',
];
const CHARACTERS = [...'ab Z09.,$={}[]"\'\n\t😀é名'];
/** Text with braces, quotes and unicode; now and then what n8n reads apart (`\`, `.constructor`). */
const text = fc
	.array(
		fc.oneof(
			{ weight: 12, arbitrary: fc.constantFrom(...CHARACTERS, '{{', '}}', '$json.a') },
			{ weight: 1, arbitrary: fc.constantFrom('\\', '.constructor') },
		),
		{ maxLength: 6 },
	)
	.map((parts) => parts.join(''));
const scalar = fc.oneof(
	{ weight: 4, arbitrary: text },
	{ weight: 2, arbitrary: fc.integer() },
	{ weight: 1, arbitrary: fc.double() },
	{ weight: 1, arbitrary: fc.constantFrom(0, -0, 447700900123, 9007199254740993n) },
	{ weight: 1, arbitrary: fc.boolean() },
	{ weight: 1, arbitrary: fc.constant(null) },
	{ weight: 1, arbitrary: fc.constantFrom(undefined, new Date(0)) },
);
// Mostly a few keys, so that references often find what they name.
const key = fc.oneof(
	{ weight: 3, arbitrary: fc.constantFrom('a', 'b', '0', 'first name') },
	{ weight: 2, arbitrary: fc.constantFrom(...KEYS) },
);
const { value } = fc.letrec<{ value: unknown }>((tie) => ({
	value: fc.oneof(
		{ depthSize: 'small', withCrossShrink: true },
		{ weight: 5, arbitrary: scalar },
		{ weight: 2, arbitrary: fc.array(tie('value'), { maxLength: 3 }) },
		{ weight: 2, arbitrary: objectOf(tie('value')) },
	),
}));
function objectOf(values: fc.Arbitrary<unknown>): fc.Arbitrary<Record<string, unknown>> {
	// fromEntries defines each key, `__proto__` too, as JSON.parse does.
	return fc
		.tuple(fc.array(fc.tuple(key, values), { maxLength: 5 }), fc.boolean())
		.map(([entries, noPrototype]) => {
			const object = Object.fromEntries(entries) as Record<string, unknown>;
			return noPrototype && entries.length % 3 === 2
				? Object.assign(Object.create(null), object)
				: object;
		});
}
export const hostileItems = fc.array(objectOf(value), { minLength: 1, maxLength: 4 });

// Generated parameters: references in every form the fast path takes (and spaces around their
// parts), code it leaves to n8n, and text around them.
const space = fc.constantFrom('', '', ' ', '  ', '\n', '\t', ' \n ');
const accessor = fc.oneof(
	key.filter((k) => /^[A-Za-z_$][\w$]*$/.test(k)).map((k) => `.${k}`),
	fc
		.tuple(
			space,
			key.filter((k) => /^[A-Za-z_$][\w$]*$/.test(k)),
		)
		.map(([s, k]) => `.${s}${k}`),
	key.filter((k) => !k.includes('"')).map((k) => `["${k}"]`),
	fc
		.tuple(
			space,
			key.filter((k) => !k.includes("'")),
		)
		.map(([s, k]) => `[${s}'${k}'${s}]`),
	fc.integer({ min: 0, max: 3 }).map((index) => `[${index}]`),
);
const reference = fc
	.tuple(space, fc.array(fc.tuple(space, accessor), { minLength: 1, maxLength: 3 }), space)
	.map(
		([before, steps, after]) => `${before}$json${steps.map(([s, a]) => s + a).join('')}${after}`,
	);
const otherCode = fc.constantFrom(
	'$json',
	' $json.a.length ',
	'$json.a.toString()',
	"$('Feed').item.json.a",
	'$json.a + 1',
	'$json?.a',
	'$json.a?.b',
	'$json[$json.b]',
	'$json.constructor',
	'$json["__proto__"]',
	'$itemIndex',
	' 1 + 1 ',
	'{ a: 1 }',
	'$json.a ',
	'$json. a. b',
	'$json["a" ]',
);
const template = fc
	.array(
		fc.oneof(
			{ weight: 3, arbitrary: text },
			{ weight: 4, arbitrary: reference.map((code) => `{{${code}}}`) },
			{ weight: 1, arbitrary: otherCode.map((code) => `{{${code}}}`) },
		),
		{ maxLength: 4 },
	)
	.map((parts) => parts.join(''));
export const hostileParameter = fc.oneof(
	{ weight: 4, arbitrary: reference.map((code) => `={{${code}}}`) },
	{ weight: 4, arbitrary: template.map((written) => `=${written}`) },
	{ weight: 1, arbitrary: otherCode.map((code) => `={{${code}}}`) },
	{ weight: 1, arbitrary: fc.tuple(reference, text).map(([code, rest]) => `=${rest}{{${code}`) },
);

// Rows of a sheet (text and numbers, empty cells, a missing column) and the parameters users
// write for them: the fast path answers nearly always, and as n8n does.
const COLUMNS = ['number', 'phone', 'name', 'first name', 'code'];
const cell = fc.oneof(
	{ weight: 6, arbitrary: text },
	{ weight: 2, arbitrary: fc.integer({ min: 0, max: 999_999_999_999 }) },
	{ weight: 1, arbitrary: fc.constantFrom('', null, 0) },
);
const row = fc
	.array(fc.tuple(fc.constantFrom(...COLUMNS), cell), { maxLength: 6 })
	.map((entries) => Object.fromEntries(entries) as Record<string, unknown>);
const column = fc
	.constantFrom(...COLUMNS)
	.map((name) => (/^\w+$/.test(name) ? `$json.${name}` : `$json["${name}"]`));
const prose = fc
	.array(fc.constantFrom(...'Hi, your code: {x} é😀名.\n'), { maxLength: 12 })
	.map((characters) => characters.join(''));
export const sheetParameter = fc.oneof(
	column.map((code) => `={{ ${code} }}`),
	fc
		.array(
			fc.oneof(
				prose,
				column.map((code) => `{{ ${code} }}`),
			),
			{ minLength: 1, maxLength: 5 },
		)
		.map((parts) => `=${parts.join('')}`),
);

export const sheetRows = fc.array(row, { minLength: 1, maxLength: 5 });

// Expressions that read nothing of the item (nodes/shared/sameForEveryItem.ts): values of the run,
// literals and what is made of them, mixed with code that reads the item, some of it in forms that
// hide the read from a careless reader (a comment, a regular expression, a template's `${…}`).

/** The instant every side reads as now: the tests stop the clock there. */
export const NOW = Date.UTC(2026, 11, 31, 23, 59, 59, 500);
/** n8n's variables, as `$vars` reads them. */
export const VARIABLES = { campaign: 'spring-sale', count: '3' };

const runValue = fc.constantFrom(
	'$execution.id',
	'$execution.mode',
	'$execution.resumeUrl',
	'$workflow.name',
	'$workflow.id',
	'$workflow.active',
	'$workflow.name.length',
	'$now',
	'$today',
	'$now.toISO()',
	'$now.plus({ days: 1 })',
	'$now.plus({ days: 1 }).toISO()',
	'$today.toISODate()',
	"$now.toFormat('yyyy-MM-dd HH:mm:ss.SSS')",
	'$now.toMillis()',
	'$now.hour',
	'$vars.campaign',
	'$vars.count',
	'$vars.missing',
	'$env.HOME',
	"DateTime.fromISO('2026-12-24T18:00:00Z').toMillis()",
	'DateTime.now().toISO()',
	"'spring'",
	'"sale"',
	'`plain`',
	'42',
	'1.5e3',
	'true',
	'null',
	'undefined',
	"[1, 'a']",
	'{ a: 1 }',
	"'$json.a'",
	"'{{'",
	"'a'.toUpperCase()",
	'[3, 1, 2].sort()',
);
const itemValue = fc.constantFrom(
	'$json.a',
	'$json',
	'$json["first name"]',
	'$itemIndex',
	'$position',
	'$input.item.json.a',
	"$('Feed').item.json.a",
	"$now /* ' */ + $itemIndex + /* ' */ 1",
	'/"/.source + $itemIndex + /"/.source',
	'`${$itemIndex}`',
	'$vars[$itemIndex]',
	'({ a: $itemIndex }).a',
	'$vars.missing ?? $itemIndex',
	'$execution.id ? $itemIndex : 1',
);
const { runCode } = fc.letrec<{ runCode: string }>((tie) => ({
	runCode: fc.oneof(
		{ depthSize: 'small', withCrossShrink: true },
		{ weight: 8, arbitrary: runValue },
		{ weight: 2, arbitrary: itemValue },
		{
			weight: 2,
			arbitrary: fc
				.tuple(
					tie('runCode'),
					fc.constantFrom('+', '===', '??', '&&', '||', '*', '/'),
					tie('runCode'),
				)
				.map(([a, operator, b]) => `(${a}) ${operator} (${b})`),
		},
		{
			weight: 1,
			arbitrary: fc
				.tuple(tie('runCode'), tie('runCode'), tie('runCode'))
				.map(([a, b, c]) => `(${a} ? ${b} : ${c})`),
		},
		{
			weight: 1,
			arbitrary: fc.array(tie('runCode'), { maxLength: 3 }).map((list) => `[${list.join(', ')}]`),
		},
		{ weight: 1, arbitrary: tie('runCode').map((code) => `({ value: ${code} }).value`) },
	),
}));
export const runWideParameter = fc.oneof(
	runCode.map((code) => `={{ ${code} }}`),
	fc
		.array(
			fc.oneof(
				prose,
				runCode.map((code) => `{{ ${code} }}`),
			),
			{ minLength: 1, maxLength: 4 },
		)
		.map((parts) => `=${parts.join('')}`),
);
/** At least two items, so that what reads the item can differ from one to the next. */
export const severalItems = fc.array(objectOf(value), { minLength: 2, maxLength: 4 });
