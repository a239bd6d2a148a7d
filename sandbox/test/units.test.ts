/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/** The sandbox's plain modules as tables: what the HTTP tests rely on, spelled out. */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { negotiate } from '../accept';
import { formatCompactDate, formatJsonDate, parseCompactDate } from '../dates';
import {
	isDeliverable,
	isValidMsisdn,
	networkFor,
	DEFAULT_NETWORKS,
	TEST_NUMBER_TABLE,
} from '../numbers';
import { countParts } from '../parts';
import { Faults } from '../faults';

it.each([
	['', 'GSM-7', 0],
	['Hello', 'GSM-7', 1],
	['€'.repeat(80), 'GSM-7', 1],
	['€'.repeat(81), 'GSM-7', 2],
	['a'.repeat(306), 'GSM-7', 2],
	['a'.repeat(307), 'GSM-7', 3],
	['ç', 'UCS-2', 1], // Ç is GSM-7, ç is not
	['Ç', 'GSM-7', 1],
	['a'.repeat(134) + 'ж', 'UCS-2', 3],
])('countParts(%j) = %s, %i part(s)', (message, encoding, parts) => {
	expect(countParts(message)).toEqual({ encoding, parts });
});

it.each([
	[undefined, 'json'],
	['', 'json'],
	['*/*', 'json'],
	['application/json', 'json'],
	['application/xml', 'xml'],
	['text/xml', 'xml'],
	['application/xml;q=0.9, application/json;q=0.8', 'xml'],
	['application/json;q=0, */*', 'xml'],
	['text/*', 'xml'],
	['text/html', undefined],
	['application/json;q=0', undefined],
])('negotiate(%j) = %s', (accept, format) => {
	expect(negotiate(accept)).toBe(format);
});

it.each([
	['447700900123', true],
	['12025550101', true],
	['12345678', true],
	['1234567', false],
	['123456789012345', true],
	['1234567890123456', false],
	['07700900123', false],
	['+447700900123', false],
	['44 7700 900123', false],
	['', false],
])('isValidMsisdn(%j) = %s', (msisdn, valid) => {
	expect(isValidMsisdn(msisdn)).toBe(valid);
});

it.each([
	['447700900123', true],
	['999123456780', false],
	['281234567890', false],
	['2712345678', true],
	['07700900123', false],
])('isDeliverable(%j) = %s', (msisdn, deliverable) => {
	expect(isDeliverable(msisdn)).toBe(deliverable);
});

it('every last digit has exactly one rule', () => {
	expect(TEST_NUMBER_TABLE.map((r) => r.lastDigit)).toEqual([
		'0',
		'1',
		'2',
		'3',
		'4',
		'5',
		'6',
		'7',
		'8',
		'9',
	]);
});

it('the longest country-code prefix wins', () => {
	const networks = [...DEFAULT_NETWORKS, { prefix: '447', networkId: 1, maxValidityMs: 1 }];
	expect(networkFor('447700900123', networks).networkId).toBe(1);
	expect(networkFor('441234567890', networks).networkId).toBe(23410);
	expect(networkFor('888123456789', networks).networkId).toBe(90100);
});

describe('dates', () => {
	const at = Date.UTC(2026, 6, 1, 9, 8, 7, 650);
	it.each([
		['UTC', '2026-07-01 09:08:07.6', '260701090807'],
		['-03:00', '2026-07-01 06:08:07.6', '260701060807'],
		['Europe/London', '2026-07-01 10:08:07.6', '260701100807'],
	])('%s', (zone, json, compact) => {
		expect(formatJsonDate(at, zone)).toBe(json);
		expect(formatCompactDate(at, zone)).toBe(compact);
		expect(parseCompactDate(compact, zone)).toBe(Date.UTC(2026, 6, 1, 9, 8, 7));
	});

	it.each([
		'',
		'26070109080',
		'2607010908070',
		'260229000000',
		'261301000000',
		'260132000000',
		'260101240000',
		'260101006000',
		'2601010000a0',
	])('parseCompactDate rejects %j', (text) =>
		expect(parseCompactDate(text, 'UTC')).toBeUndefined(),
	);

	it('reads a leap day', () => {
		expect(parseCompactDate('280229120000', 'UTC')).toBe(Date.UTC(2028, 1, 29, 12));
	});
});

it('faults: a share of 1 always hits, queued faults go first, set() clears the queue', () => {
	const f = new Faults({ error500Rate: 1 });
	f.queue(['dropAfter']);
	expect([f.draw(), f.draw()]).toEqual(['dropAfter', 'error500']);
	f.queue(['error429']);
	f.set({});
	expect(f.draw()).toBeUndefined();
});

describe('the README documents the tables the sandbox uses', () => {
	const readme = readFileSync(path.join(__dirname, '../README.md'), 'utf8');
	const when = {
		'after-delay': 'after the delay',
		'at-validity-end': 'at the end of its validity',
		never: 'never',
	};

	it.each(TEST_NUMBER_TABLE.map((r) => [r.lastDigit, r]))('test number %s', (_d, rule) => {
		expect(readme).toContain(
			`| ${rule.lastDigit} | ${rule.status} | ${when[rule.timing]} | ${rule.meaning} |`,
		);
	});

	it.each(DEFAULT_NETWORKS.map((n) => [n.prefix || 'any other', n]))('network %s', (prefix, n) => {
		const days = n.maxValidityMs / 86_400_000;
		expect(readme).toContain(
			`| ${prefix} | ${n.networkId} | ${days} ${days === 1 ? 'day' : 'days'} |`,
		);
	});
});
