/* eslint-disable
	@n8n/community-nodes/no-restricted-globals
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/** Fault injection: each kind, what it leaves behind, and that it is off by default. */
import type { Sandbox } from '../server';
import { startSandbox } from '../server';
import { call, getStatus, parseJsonLossless, send, sendOk } from './helpers';

let sb: Sandbox;
beforeEach(async () => {
	sb = await startSandbox();
});
afterEach(() => sb.stop());

const credits = () => sb.accounts()[0].credits;
const hi = { destination: '447700900001', message: 'hi' };

it('is off by default', async () => {
	const all = await Promise.all(Array.from({ length: 30 }, () => send(sb, hi)));
	expect(all.every((r) => r.status === 200)).toBe(true);
	expect(sb.requests().every((r) => r.fault === undefined)).toBe(true);
});

it('500: answered before processing, nothing charged or stored', async () => {
	sb.setFaults({ error500Rate: 1 });
	const res = await send(sb, hi);
	expect(res.status).toBe(500);
	expect(parseJsonLossless(res.text).error).toMatch(/injected/);
	expect(credits()).toBe(1000);
	expect(sb.received().batches).toHaveLength(0);
});

it('429 with Retry-After: answered before processing', async () => {
	sb.setFaults({ error429Rate: 1, retryAfterSeconds: 7 });
	const res = await send(sb, hi, { accept: 'application/xml' });
	expect(res.status).toBe(429);
	expect(res.headers.get('retry-after')).toBe('7');
	expect(res.text).toMatch(/<error>injected fault: too many requests/);
	expect(credits()).toBe(1000);
});

it('dropped before processing: the connection closes, nothing is charged or stored', async () => {
	sb.queueFaults('dropBefore');
	await expect(send(sb, hi)).rejects.toThrow();
	expect(credits()).toBe(1000);
	expect(sb.received().batches).toHaveLength(0);
	expect(sb.requests()[0]).toMatchObject({ outcome: 'dropped-before', fault: 'dropBefore' });
});

it('dropped after processing: no answer, but the batch was accepted and charged exactly once', async () => {
	sb.queueFaults('dropAfter');
	await expect(send(sb, hi)).rejects.toThrow();
	expect(credits()).toBe(999);
	expect(sb.received().destinations).toEqual([
		expect.objectContaining({ msisdn: '447700900001', accepted: 1 }),
	]);
	expect(sb.requests()[0]).toMatchObject({ outcome: 'dropped-after', form: hi });
	// A careless client that sends again shows up as a second acceptance.
	await send(sb, hi);
	expect(sb.received().destinations[0].accepted).toBe(2);
});

it('queued faults come in order, then normal service resumes', async () => {
	sb.queueFaults('error429', 'error500');
	const statuses = [];
	for (let i = 0; i < 3; i++) statuses.push((await send(sb, hi)).status);
	expect(statuses).toEqual([429, 500, 200]);
	expect(credits()).toBe(999);
});

it('a fault queued at the nth request: the ones before it pass, and it follows those already queued', async () => {
	sb.queueFaults('error429');
	sb.queueFaultAt(3, 'error500');
	const statuses = [];
	for (let i = 0; i < 5; i++) statuses.push((await send(sb, hi)).status);
	expect(statuses).toEqual([429, 200, 200, 500, 200]);
});

it('faults apply to get_status too', async () => {
	const batch = await sendOk(sb, hi);
	sb.queueFaults('error500');
	expect((await getStatus(sb, batch)).status).toBe(500);
	expect((await getStatus(sb, batch)).status).toBe(200);
});

it('shares are drawn from a seeded generator: the same seed gives the same run', async () => {
	const run = async () => {
		sb.setFaults({ error500Rate: 0.3, error429Rate: 0.3, seed: 42 });
		const out: number[] = [];
		for (let i = 0; i < 40; i++)
			out.push((await call(sb, '/api/sms/get_status?batch_id=1')).status);
		return out;
	};
	const first = await run();
	expect(await run()).toEqual(first);
	for (const status of [404, 429, 500]) expect(first).toContain(status);
});

it('shares of dropped-before, dropped-after and 503 come from the seed: the same run twice', async () => {
	const run = async () => {
		sb.setFaults({ dropBeforeRate: 0.25, dropAfterRate: 0.25, error503Rate: 0.25, seed: 7 });
		const [from, before] = [sb.requests().length, credits()];
		for (let i = 0; i < 40; i++) await send(sb, hi).catch(() => 'dropped');
		const outcomes = sb
			.requests()
			.slice(from)
			.map((r) => r.outcome);
		return { outcomes, charged: before - credits() };
	};
	const first = await run();
	expect(await run()).toEqual(first);
	for (const outcome of ['dropped-before', 'dropped-after', 503, 200])
		expect(first.outcomes).toContain(outcome);
	// Only what was processed is charged: the answered sends and those dropped after.
	const processed = first.outcomes.filter((o) => o === 200 || o === 'dropped-after');
	expect(first.charged).toBe(processed.length);
});

it('rate limit: counted only after authentication, so strangers cannot spend an account’s quota', async () => {
	sb.setFaults({ rateLimit: { limit: 2, windowMs: 60_000 } });
	for (const auth of [null, { username: 'demo', password: 'wrong' }, null]) {
		expect((await send(sb, hi, { auth })).status).toBe(401);
	}
	const statuses = [];
	for (let i = 0; i < 3; i++) statuses.push((await send(sb, hi)).status);
	expect(statuses).toEqual([200, 200, 429]);
});

describe('answers a client must read by their body, not their label', () => {
	const JSON_TYPE = 'application/json; charset=utf-8';
	const XML_TYPE = 'application/xml; charset=utf-8';
	const TEXT = 'text/plain; charset=utf-8';
	it.each([
		['mislabel: JSON labelled text/plain', { mislabel: true }, 'application/json', TEXT, '{'],
		['mislabel: XML labelled text/plain', { mislabel: true }, 'application/xml', TEXT, '<?xml'],
		[
			'answerFormat xml: XML to a JSON request',
			{ answerFormat: 'xml' },
			'application/json',
			XML_TYPE,
			'<?xml',
		],
		[
			'answerFormat json: JSON to an XML request',
			{ answerFormat: 'json' },
			'application/xml',
			JSON_TYPE,
			'{',
		],
		[
			'both: XML to a JSON request, labelled text/plain',
			{ answerFormat: 'xml', mislabel: true },
			'application/json',
			TEXT,
			'<?xml',
		],
	])('%s', async (_name, faults, accept, type, start) => {
		sb.setFaults(faults as object);
		const ok = await send(sb, hi, { accept });
		const missing = await getStatus(sb, '1', { accept });
		for (const res of [ok, missing]) {
			expect(res.headers.get('content-type')).toBe(type);
			expect(res.text.startsWith(start)).toBe(true);
		}
		expect([ok.status, missing.status]).toEqual([200, 404]);
		expect(ok.text).toMatch(/accepted.{1,2}true/);
	});

	it('the admin view sets and shows them', async () => {
		const put = await call(sb, '/_sandbox/faults', {
			method: 'PUT',
			body: JSON.stringify({ mislabel: true, answerFormat: 'xml' }),
		});
		expect(parseJsonLossless(put.text)).toMatchObject({ mislabel: true, answerFormat: 'xml' });
		expect((await send(sb, hi)).headers.get('content-type')).toBe(TEXT);
	});
});

it('rate limit: beyond N requests per window, 429 with the seconds left in Retry-After', async () => {
	sb.setFaults({ rateLimit: { limit: 2, windowMs: 60_000 } });
	const statuses = [];
	for (let i = 0; i < 3; i++) statuses.push(await send(sb, hi));
	expect(statuses.map((r) => r.status)).toEqual([200, 200, 429]);
	const retryAfter = Number(statuses[2].headers.get('retry-after'));
	expect(retryAfter).toBeGreaterThanOrEqual(1);
	expect(retryAfter).toBeLessThanOrEqual(60);
	expect(credits()).toBe(998);
	// The limit is per account.
	await sb.upsertAccount({ username: 'other', password: 'pw', credits: 5 });
	expect((await send(sb, hi, { auth: { username: 'other', password: 'pw' } })).status).toBe(200);
});

it('latency delays each answer by at least the given time', async () => {
	sb.setFaults({ latencyMs: 150 });
	const started = Date.now();
	expect((await send(sb, hi)).status).toBe(200);
	expect(Date.now() - started).toBeGreaterThanOrEqual(140);
});

it('stop() does not wait for a request held by latency', async () => {
	const slow = await startSandbox({ faults: { latencyMs: 60_000 } });
	const pending = send(slow, hi).catch((e: Error) => e);
	await new Promise((r) => setTimeout(r, 50));
	await slow.stop();
	// fetch's TypeError comes from another realm than jest's, so match its text.
	expect(String(await pending)).toMatch(/fetch failed/);
});

it('setFaults({}) turns everything off; the admin view sets and shows faults', async () => {
	sb.setFaults({ error500Rate: 1 });
	sb.setFaults({});
	expect((await send(sb, hi)).status).toBe(200);
	const put = await call(sb, '/_sandbox/faults', {
		method: 'PUT',
		body: JSON.stringify({ error429Rate: 1, retryAfterSeconds: 3 }),
	});
	expect(parseJsonLossless(put.text)).toMatchObject({
		error429Rate: 1,
		retryAfterSeconds: 3,
		error500Rate: 0,
	});
	expect((await send(sb, hi)).headers.get('retry-after')).toBe('3');
	await call(sb, '/_sandbox/faults', { method: 'PUT', body: '{}' });
	const queued = await call(sb, '/_sandbox/faults/queue', {
		method: 'POST',
		body: JSON.stringify({ faults: ['dropAfter'] }),
	});
	expect(parseJsonLossless(queued.text).queued).toEqual(['dropAfter']);
	await expect(send(sb, hi)).rejects.toThrow();
	const bad = await call(sb, '/_sandbox/faults/queue', {
		method: 'POST',
		body: JSON.stringify({ faults: ['boom'] }),
	});
	expect(bad.status).toBe(400);
});

it('the request log keeps the form of a send even when the connection was dropped before processing', async () => {
	sb.queueFaults('dropBefore');
	await expect(send(sb, hi)).rejects.toThrow();
	expect(sb.requests()[0]).toMatchObject({ form: hi, outcome: 'dropped-before' });
});

it('503 with Retry-After: answered before processing', async () => {
	sb.setFaults({ error503Rate: 1, retryAfterSeconds: 2 });
	const res = await send(sb, hi);
	expect([res.status, res.headers.get('retry-after')]).toEqual([503, '2']);
	expect(parseJsonLossless(res.text).error).toMatch(/service unavailable/);
	expect(credits()).toBe(1000);
});

it.each([
	[{ error500Rate: 2 }, /error500Rate must be from 0 to 1/],
	[{ error500Rate: 0.6, error429Rate: 0.6 }, /add up to 1.2/],
	[{ error500rate: 1 }, /unknown fault setting\(s\): error500rate/],
	[{ latencyMs: -1 }, /0 or more/],
	[{ rateLimit: { limit: 0, windowMs: 1000 } }, /rateLimit/],
	[{ mislabel: 'yes' }, /mislabel must be true or false/],
	[{ answerFormat: 'html' }, /answerFormat must be "json" or "xml"/],
])('refuses fault settings %j', async (faults, message) => {
	expect(() => sb.setFaults(faults as object)).toThrow(message);
	const res = await call(sb, '/_sandbox/faults', { method: 'PUT', body: JSON.stringify(faults) });
	expect(res.status).toBe(400);
	expect(parseJsonLossless(res.text).error).toMatch(message);
});
