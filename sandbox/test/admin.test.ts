/** /_sandbox/*: what the sandbox received, for tests that prove "exactly once". */
import type { Sandbox } from '../server';
import { startSandbox, TEST_NUMBER_TABLE } from '../server';
import { call, parseJsonLossless, parseReceived, sendOk } from './helpers';

const T0 = Date.UTC(2026, 0, 15, 10, 0, 0, 0);
let sb: Sandbox;
beforeEach(async () => {
	sb = await startSandbox({ timeScale: 0, startTime: T0 });
	await sb.upsertAccount({ username: 'other', password: 'pw', credits: 10 });
});
afterEach(() => sb.stop());

const admin = async (path: string, init: { method?: string; body?: unknown } = {}) => {
	const body = init.body === undefined ? undefined : JSON.stringify(init.body);
	const res = await call(sb, path, { auth: null, method: init.method, body });
	return { status: res.status, text: res.text, body: parseJsonLossless(res.text) };
};

it('GET /_sandbox/batches lists every accepted batch and counts acceptances per destination', async () => {
	const b1 = await sendOk(sb, { destination: '447700900001,447700900002,0123', message: 'one' });
	const b2 = await sendOk(
		sb,
		{ destination: '447700900001', message: 'two' },
		{ auth: { username: 'other', password: 'pw' } },
	);
	const { status, text } = await admin('/_sandbox/batches');
	expect(status).toBe(200);
	const body = parseReceived(text);
	expect(body.destinations).toEqual([
		{ msisdn: '447700900001', accepted: 2, batch_ids: [b1, b2] },
		{ msisdn: '447700900002', accepted: 1, batch_ids: [b1] },
	]);
	expect(body.batches[0]).toEqual({
		batch_id: b1,
		account: 'demo',
		message: 'one',
		encoding: 'GSM-7',
		parts: 1,
		credits_charged: 2,
		submitted_at: '2026-01-15T10:00:00.000Z',
		messages: [
			expect.objectContaining({
				msisdn: '447700900001',
				network_id: 23410,
				status: 'ENROUTE',
				valid_until: '2026-01-22T10:00:00.000Z', // the default 7 days
			}),
			expect.objectContaining({ msisdn: '447700900002' }),
		],
	});
	// Ids in the admin view are strings, so any client reads them exactly.
	expect(typeof body.batches[0].messages[0].gateway_session_id).toBe('string');
	const mine = await admin('/_sandbox/batches?account=other');
	expect(parseReceived(mine.text).batches.map((b) => b.batch_id)).toEqual([b2]);
	expect(sb.received('other').destinations).toEqual([
		{ msisdn: '447700900001', accepted: 1, batch_ids: [b2] },
	]);
});

it('GET /_sandbox/requests shows what each /api request carried, without passwords', async () => {
	await sendOk(sb, { destination: '447700900001', message: 'x' });
	const { body } = await admin('/_sandbox/requests');
	expect(body.requests).toEqual([
		expect.objectContaining({
			method: 'POST',
			path: '/api/sms/send',
			account: 'demo',
			outcome: 200,
		}),
	]);
	expect(JSON.stringify(body)).not.toContain('demo-password');
});

it('accounts can be listed, added and given credits', async () => {
	expect((await admin('/_sandbox/accounts')).body.accounts).toEqual([
		{ username: 'demo', credits: 1000 },
		{ username: 'other', credits: 10 },
	]);
	await admin('/_sandbox/accounts/demo', { method: 'PUT', body: { credits: 2 } });
	await admin('/_sandbox/accounts/third', { method: 'PUT', body: { password: 'p3', credits: 3 } });
	expect(sb.accounts()).toEqual([
		{ username: 'demo', credits: 2 },
		{ username: 'other', credits: 10 },
		{ username: 'third', credits: 3 },
	]);
	expect(
		(await admin('/_sandbox/accounts/fourth', { method: 'PUT', body: { credits: 3 } })).status,
	).toBe(400);
	expect(
		(await admin('/_sandbox/accounts/demo', { method: 'PUT', body: { credits: -1 } })).status,
	).toBe(400);
	const colon = await admin('/_sandbox/accounts/a%3Ab', {
		method: 'PUT',
		body: { password: 'p', credits: 1 },
	});
	expect(colon.status).toBe(400);
});

it('GET /_sandbox/test-numbers serves the table the README documents', async () => {
	const { body } = await admin('/_sandbox/test-numbers');
	expect(body.table).toEqual(TEST_NUMBER_TABLE);
	expect(body.valid_msisdn).toBe('^[1-9][0-9]{7,14}$');
	expect(body.networks).toContainEqual({
		prefix: '44',
		networkId: 23410,
		maxValidityMs: 3 * 86_400_000,
	});
});

it('unknown admin paths are 404, wrong methods 405, bad JSON 400', async () => {
	expect((await admin('/_sandbox/nothing')).status).toBe(404);
	expect((await admin('/_sandbox/batches', { method: 'DELETE' })).status).toBe(405);
	const res = await call(sb, '/_sandbox/faults', { method: 'PUT', body: 'not json', auth: null });
	expect(res.status).toBe(400);
});

it('with admin off, /_sandbox/* does not exist', async () => {
	const closed = await startSandbox({ admin: false });
	try {
		expect((await fetch(`${closed.baseUrl}/_sandbox/batches`)).status).toBe(404);
	} finally {
		await closed.stop();
	}
});
