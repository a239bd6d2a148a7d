/** Every message goes ENROUTE -> a final state on the sandbox clock, by the test-number table. */
import type { Sandbox } from '../server';
import { startSandbox, TEST_NUMBER_TABLE } from '../server';
import { formatCompactDate } from '../dates';
import { call, getStatus, jsonReports, parseJsonLossless, sendOk, until } from './helpers';

const T0 = Date.UTC(2026, 0, 15, 10, 0, 0, 0);
let sb: Sandbox;
beforeEach(async () => {
	sb = await startSandbox({ timeScale: 0, startTime: T0, finalAfterMs: 5000 });
});
afterEach(() => sb.stop());

async function reports(
	batch: string,
	box = sb,
): Promise<Array<{ msisdn: string; status: string; delivery_date: string }>> {
	return jsonReports((await getStatus(box, batch)).text) as unknown as Array<{
		msisdn: string;
		status: string;
		delivery_date: string;
	}>;
}

const byDigit = (d: string) => `33612345670${d}`; // France: 7 days maximum validity

it('everything is ENROUTE without a date at first; then each digit reaches its state', async () => {
	const digits = TEST_NUMBER_TABLE.map((r) => r.lastDigit);
	const batch = await sendOk(sb, { destination: digits.map(byDigit).join(','), message: 'x' });
	expect((await reports(batch)).map((r) => [r.status, r.delivery_date])).toEqual(
		digits.map(() => ['ENROUTE', '']),
	);
	sb.advance(4999);
	expect((await reports(batch)).every((r) => r.status === 'ENROUTE')).toBe(true);
	sb.advance(1);
	const afterDelay = TEST_NUMBER_TABLE.map((r) =>
		r.timing === 'after-delay' ? r.status : 'ENROUTE',
	);
	expect((await reports(batch)).map((r) => r.status)).toEqual(afterDelay);
	sb.advance(7 * 24 * 3600_000); // the default validity: 7 days
	const atEnd = TEST_NUMBER_TABLE.map((r) => r.status);
	const final = await reports(batch);
	expect(final.map((r) => r.status)).toEqual(atEnd);
	expect(final.find((r) => r.status === 'EXPIRED')?.delivery_date).toBe('2026-01-22 10:00:00.0');
	expect(final.find((r) => r.status === 'ENROUTE')?.delivery_date).toBe('');
});

it.each([
	['default validity, network maximum 7 days', '336123456708', undefined, '2026-01-22 10:00:00.0'],
	// Rule 4: omitted, the validity is 7 days; rule 5 clamps only a validity_period that was given.
	[
		'default 7 days, though the UK maximum is 3 days',
		'447700900008',
		undefined,
		'2026-01-22 10:00:00.0',
	],
	[
		'default 7 days, though the German maximum is 1 day',
		'4915123456788',
		undefined,
		'2026-01-22 10:00:00.0',
	],
	[
		'validity_period beyond the German maximum is clamped to 1 day',
		'4915123456788',
		'260301000000',
		'2026-01-16 10:00:00.0',
	],
	['validity_period within the maximum', '447700900008', '260116120000', '2026-01-16 12:00:00.0'],
	[
		'validity_period beyond the maximum is clamped',
		'447700900008',
		'260301000000',
		'2026-01-18 10:00:00.0',
	],
	[
		'unknown country: the catch-all network, 7 days',
		'8881234568',
		'270101000000',
		'2026-01-22 10:00:00.0',
	],
])('EXPIRED at the end of validity: %s', async (_name, msisdn, validity_period, expiresAt) => {
	const fields: Record<string, string> = { destination: msisdn, message: 'x' };
	if (validity_period) fields.validity_period = validity_period;
	const batch = await sendOk(sb, fields);
	sb.advance(Date.parse(`${expiresAt.replace(' ', 'T').slice(0, 19)}Z`) - T0 - 1);
	expect((await reports(batch))[0].status).toBe('ENROUTE');
	sb.advance(1);
	expect(await reports(batch)).toEqual([
		expect.objectContaining({ status: 'EXPIRED', delivery_date: expiresAt }),
	]);
});

it('a message to be delivered expires instead when its validity ends first', async () => {
	const batch = await sendOk(sb, {
		destination: '447700900001,447700900006',
		message: 'x',
		validity_period: '260115100003',
	});
	sb.advance(10_000);
	expect((await reports(batch)).map((r) => [r.status, r.delivery_date])).toEqual([
		['EXPIRED', '2026-01-15 10:00:03.0'],
		['EXPIRED', '2026-01-15 10:00:03.0'],
	]);
});

it('validity_period is read in the sandbox time zone', async () => {
	const zoned = await startSandbox({ timeScale: 0, startTime: T0, timeZone: '+02:00' });
	try {
		// 13:00 at +02:00 is 11:00 UTC, one hour after T0.
		const batch = await sendOk(zoned, {
			destination: '447700900008',
			message: 'x',
			validity_period: '260115130000',
		});
		zoned.advance(3600_000);
		expect(await reports(batch, zoned)).toEqual([
			expect.objectContaining({ status: 'EXPIRED', delivery_date: '2026-01-15 13:00:00.0' }),
		]);
	} finally {
		await zoned.stop();
	}
});

it('network_id follows the country code (longest prefix)', async () => {
	const batch = await sendOk(sb, {
		destination: '12025550101,447700900001,4915123456780,27821234560,8881234560',
		message: 'x',
	});
	const networks = jsonReports((await getStatus(sb, batch)).text).map((r) => r.network_id);
	expect(networks).toEqual([310260, 23410, 26201, 65501, 90100]);
});

it('networks are configurable per prefix, with their own maximum validity', async () => {
	const custom = await startSandbox({
		timeScale: 0,
		startTime: T0,
		networks: [
			{ prefix: '4477', networkId: 1234, maxValidityMs: 60_000 },
			{ prefix: '', networkId: 1, maxValidityMs: 86_400_000 },
		],
	});
	try {
		const batch = await sendOk(custom, {
			destination: '447700900008,447800900008',
			message: 'x',
			validity_period: '270101000000', // clamped to each network's maximum
		});
		custom.advance(60_000);
		const r = jsonReports((await getStatus(custom, batch)).text);
		expect(r.map((x) => [x.network_id, x.status])).toEqual([
			[1234, 'EXPIRED'],
			[1, 'ENROUTE'],
		]);
	} finally {
		await custom.stop();
	}
});

it('a fast clock (--time-scale) drives every test-number outcome in real time', async () => {
	// x200: the 5 s delay is 25 ms of real time, a validity of 30 s is 150 ms.
	const fast = await startSandbox({ timeScale: 200, finalAfterMs: 5000 });
	try {
		const destination = TEST_NUMBER_TABLE.map((r) => byDigit(r.lastDigit)).join(',');
		const validity_period = formatCompactDate(fast.now() + 30_000, 'UTC');
		const batch = await sendOk(fast, { destination, message: 'x', validity_period });
		const expected = TEST_NUMBER_TABLE.map((r) => r.status);
		let seen: string[] = [];
		await until(async () => {
			seen = (await reports(batch, fast)).map((r) => r.status);
			return seen.join() === expected.join();
		});
		expect(seen).toEqual(expected);
		const final = await reports(batch, fast);
		expect(final.filter((r) => r.delivery_date === '').map((r) => r.status)).toEqual(['ENROUTE']);
	} finally {
		await fast.stop();
	}
});

it('statuses no test number produces (DELETED, UNKNOWN) can be forced through the admin view', async () => {
	const batch = await sendOk(sb, { destination: '447700900001,447700900002', message: 'x' });
	const [s1, s2] = sb.received().batches[0].messages.map((m) => m.gateway_session_id);
	await sb.forceStatus(s1, 'DELETED');
	const res = await call(sb, `/_sandbox/messages/${s2}`, {
		method: 'POST',
		body: JSON.stringify({ status: 'UNKNOWN' }),
	});
	expect(res.status).toBe(200);
	expect((await reports(batch)).map((r) => [r.status, r.delivery_date])).toEqual([
		['DELETED', '2026-01-15 10:00:00.0'],
		['UNKNOWN', '2026-01-15 10:00:00.0'],
	]);
	const bad = await call(sb, `/_sandbox/messages/${s2}`, {
		method: 'POST',
		body: JSON.stringify({ status: 'GONE' }),
	});
	expect(bad.status).toBe(400);
});

it('the clock can be read and moved through the admin view', async () => {
	const clock = parseJsonLossless((await call(sb, '/_sandbox/clock')).text);
	expect(clock).toMatchObject({
		now: '2026-01-15T10:00:00.000Z',
		time_scale: 0,
		final_after_ms: 5000,
		time_zone: 'UTC',
	});
	const moved = await call(sb, '/_sandbox/clock', {
		method: 'POST',
		body: JSON.stringify({ advance_ms: 60_000 }),
	});
	expect(parseJsonLossless(moved.text).now).toBe('2026-01-15T10:01:00.000Z');
	const back = await call(sb, '/_sandbox/clock', {
		method: 'POST',
		body: JSON.stringify({ now: '2020-01-01T00:00:00Z' }),
	});
	expect(back.status).toBe(400);
	const nonsense = await call(sb, '/_sandbox/clock', {
		method: 'POST',
		body: JSON.stringify({ now: 'tomorrow' }),
	});
	expect(nonsense.status).toBe(400);
	expect(sb.now()).toBe(T0 + 60_000);
	sb.setNow(T0 + 120_000);
	expect(sb.now()).toBe(T0 + 120_000);
	expect(() => sb.setNow(T0)).toThrow(/forward/);
});
