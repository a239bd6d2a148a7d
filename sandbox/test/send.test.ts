/** docs/interface.md 4.1 (send) and 5 (authentication), over HTTP. */
import type { Sandbox } from '../server';
import { FIRST_BATCH_ID, startSandbox } from '../server';
import {
	basic,
	call,
	DEMO,
	getStatus,
	parseJsonLossless,
	rawNumbers,
	send,
	xmlElement,
	xmlReports,
} from './helpers';

let sb: Sandbox;
beforeEach(async () => {
	sb = await startSandbox({
		accounts: [
			{ username: 'demo', password: 'demo-password', credits: 1000 },
			{ username: 'poor', password: 'pw', credits: 3 },
		],
	});
});
afterEach(() => sb.stop());

const REALM = 'Basic realm="bulk-sms-sandbox", charset="UTF-8"';
const credits = (username = 'demo') => sb.accounts().find((a) => a.username === username)?.credits;
const ONE = '447700900001';

/** A send answer in JSON or XML; XML carries every value as text, so compare both as text. */
function answerOf(text: string, accept: string) {
	const body =
		accept === 'application/xml' ? xmlElement(text, 'sms_send') : parseJsonLossless(text);
	const shown = [body.accepted, body.batch_size, body.receive_updates, body.remaining_credits];
	return { body, shown: shown.map(String) };
}

describe('authentication', () => {
	it.each([
		['missing', null],
		['wrong password', { username: 'demo', password: 'nope' }],
		['unknown user', { username: 'ghost', password: 'demo-password' }],
	])('%s credentials get 401 with WWW-Authenticate, on both operations', async (_name, auth) => {
		for (const res of [
			await send(sb, { destination: '447700900001', message: 'hi' }, { auth }),
			await call(sb, '/api/sms/get_status?batch_id=1', { auth }),
		]) {
			expect(res.status).toBe(401);
			expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm="bulk-sms-sandbox"/);
			expect(parseJsonLossless(res.text).error).toMatch(/credentials|password/);
		}
		expect(credits()).toBe(1000);
		expect(sb.received().batches).toHaveLength(0);
	});

	const XML = '<?xml version="1.0" encoding="UTF-8"?>';
	const REQUIRED = 'HTTP Basic credentials are required';
	const MALFORMED = 'the Authorization header does not hold HTTP Basic credentials';
	const wrong = { username: 'demo', password: 'nope' };
	// Credentials are checked before Accept: a caller without them is told only that.
	it.each([
		['none, Accept text/html', { auth: null, accept: 'text/html' }, 'text/plain', `${REQUIRED}\n`],
		[
			'wrong, Accept text/html',
			{ auth: wrong, accept: 'text/html' },
			'text/plain',
			'wrong username or password\n',
		],
		[
			'none, Accept XML',
			{ auth: null, accept: 'application/xml' },
			'application/xml',
			`${XML}<error>${REQUIRED}</error>`,
		],
		[
			'wrong, Accept XML',
			{ auth: wrong, accept: 'application/xml' },
			'application/xml',
			`${XML}<error>wrong username or password</error>`,
		],
		['"Basic !!!"', { authorization: 'Basic !!!' }, 'application/json', `{"error":"${MALFORMED}"}`],
		['"Bearer x"', { authorization: 'Bearer x' }, 'application/json', `{"error":"${MALFORMED}"}`],
		[
			'Basic without a colon',
			{ authorization: `Basic ${btoa('demo')}` },
			'application/json',
			`{"error":"${MALFORMED}"}`,
		],
	])(
		'%s: 401 with WWW-Authenticate, the body in the answer format',
		async (_name, o, type, body) => {
			const res = await send(sb, { destination: '447700900001', message: 'hi' }, o);
			expect(res.status).toBe(401);
			expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm="bulk-sms-sandbox"/);
			expect(res.headers.get('content-type')).toBe(`${type}; charset=utf-8`);
			expect(res.text).toBe(body);
			expect(credits()).toBe(1000);
		},
	);

	it('a body over 1 MB: 401 without credentials, 413 with them', async () => {
		const big = { destination: '447700900001', message: 'a'.repeat(1024 * 1024) };
		const anonymous = await send(sb, big, { auth: null });
		expect([anonymous.status, anonymous.headers.get('www-authenticate')]).toEqual([401, REALM]);
		const known = await send(sb, big, { accept: 'application/xml' });
		expect([known.status, known.text]).toEqual([
			413,
			`${XML}<error>request body over 1 MB</error>`,
		]);
		expect(credits()).toBe(1000);
	});

	it('a password may contain a colon', async () => {
		await sb.upsertAccount({ username: 'colon', password: 'a:b', credits: 5 });
		const res = await send(
			sb,
			{ destination: '447700900001', message: 'hi' },
			{ auth: { username: 'colon', password: 'a:b' } },
		);
		expect(parseJsonLossless(res.text)).toMatchObject({ accepted: true, remaining_credits: 4 });
	});
});

describe('accepted batch (rule 1)', () => {
	it('answers every field but error, with batch_id a bare JSON number above 2^53', async () => {
		const res = await send(sb, { destination: '447700900001,447700900002', message: 'Hello' });
		expect(res.status).toBe(200);
		expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
		expect(res.text).toBe(
			`{"accepted":true,"batch_id":${FIRST_BATCH_ID},"batch_size":2,"receive_updates":false,"remaining_credits":998}`,
		);
		// The id is one JSON.parse corrupts: the point of starting above 2^53.
		expect(String(JSON.parse(res.text).batch_id)).not.toBe(FIRST_BATCH_ID.toString());
	});

	it('gives every batch a new odd id above 2^53', async () => {
		const ids: bigint[] = [];
		for (let i = 0; i < 3; i++) {
			const res = await send(sb, { destination: '447700900001', message: 'x' });
			ids.push(BigInt(rawNumbers(res.text, 'batch_id')[0]));
		}
		expect(new Set(ids).size).toBe(3);
		for (const id of ids) {
			expect(id > 2n ** 53n).toBe(true);
			expect(id % 2n).toBe(1n);
		}
	});

	it('answers XML with root sms_send and one child per field', async () => {
		const res = await send(
			sb,
			{ destination: '447700900001', message: 'Hello' },
			{ accept: 'application/xml' },
		);
		expect(res.headers.get('content-type')).toBe('application/xml; charset=utf-8');
		expect(res.text).toBe(
			'<?xml version="1.0" encoding="UTF-8"?><sms_send><accepted>true</accepted>' +
				`<batch_id>${FIRST_BATCH_ID}</batch_id><batch_size>1</batch_size>` +
				'<receive_updates>false</receive_updates><remaining_credits>999</remaining_credits></sms_send>',
		);
	});
});

describe('a first batch id of 19 digits (firstBatchId)', () => {
	it('is given out as it is, read back in JSON and XML, and the ids end at 19 digits', async () => {
		const top = await startSandbox({ firstBatchId: '9999999999999999997' });
		try {
			const hi = { destination: '447700900001', message: 'x' };
			const ids = [];
			for (let i = 0; i < 2; i++) ids.push(rawNumbers((await send(top, hi)).text, 'batch_id')[0]);
			expect(ids).toEqual(['9999999999999999997', '9999999999999999999']);
			const json = await getStatus(top, ids[0]);
			expect(rawNumbers(json.text, 'batch_id')).toEqual([ids[0]]);
			const xml = xmlReports((await getStatus(top, ids[1], { accept: 'application/xml' })).text);
			expect(xml[0].batch_id).toBe(ids[1]);
			// The seed's batch_id has up to 19 digits: a 20th is refused, not given out.
			const third = parseJsonLossless((await send(top, hi)).text);
			expect(third).toMatchObject({ accepted: false, remaining_credits: 998 });
			expect(third.error).toMatch(/no batch id left/);
		} finally {
			await top.stop();
		}
	});

	it.each([['12345678901234567890'], ['0'], ['12e3'], ['-5'], [123]])(
		'refuses %j',
		async (firstBatchId) => {
			await expect(startSandbox({ firstBatchId: firstBatchId as string })).rejects.toThrow(
				/first batch id/,
			);
		},
	);
});

describe('destinations (rule 3)', () => {
	it('drops numbers of unassigned country codes, which look valid to a format check', async () => {
		const destination = '447700900001,999123456780,281234567890,9901234567,9971234567,447700900002';
		const res = parseJsonLossless((await send(sb, { destination, message: 'x' })).text);
		expect(res).toMatchObject({ accepted: true, batch_size: 2, remaining_credits: 998 });
		const none = parseJsonLossless(
			(await send(sb, { destination: '999123456780', message: 'x' })).text,
		);
		expect(none).toMatchObject({
			accepted: false,
			error: expect.stringMatching(/no valid destination/),
		});
	});

	it('drops invalid destinations and reports a smaller batch_size', async () => {
		const destination =
			'447700900001, 07700900002,+447700900003,4477-009,12345,1234567890123456,447700900004';
		const res = parseJsonLossless((await send(sb, { destination, message: 'x' })).text);
		expect(res).toMatchObject({ accepted: true, batch_size: 2, remaining_credits: 998 });
		expect(sb.received().destinations.map((d) => d.msisdn)).toEqual([
			'447700900001',
			'447700900004',
		]);
	});

	it('keeps a destination given twice: two messages, two charges', async () => {
		const res = parseJsonLossless(
			(await send(sb, { destination: '447700900001,447700900001', message: 'x' })).text,
		);
		expect(res).toMatchObject({ batch_size: 2, remaining_credits: 998 });
		expect(sb.received().destinations).toEqual([
			expect.objectContaining({ msisdn: '447700900001', accepted: 2 }),
		]);
	});
});

describe('not accepted (rule 2): accepted=false, error, no batch_id, nothing charged', () => {
	const withValidity = (validity_period: string) => ({
		destination: ONE,
		message: 'x',
		validity_period,
	});
	it.each<[string, Record<string, string>, RegExp]>([
		['no valid destination', { destination: '0123,abc,+44', message: 'x' }, /no valid destination/],
		['no destination field', { message: 'x' }, /destination is required/],
		['empty destination', { destination: ' , ', message: 'x' }, /no valid destination/],
		['no message field', { destination: ONE }, /message is required/],
		['empty message', { destination: ONE, message: '' }, /message is empty/],
		...[
			['not 12 digits', '2612312359'],
			['with letters', '26123123595a'],
			['month 13', '271301120000'],
			['30 February', '270230120000'],
			['hour 24', '270101240000'],
			['an ISO date', '2027-01-01T00:00:00Z'],
		].map(([what, value]): [string, Record<string, string>, RegExp] => [
			`validity ${what}`,
			withValidity(value),
			/yyMMddHHmmss/,
		]),
		['validity in the past', withValidity('200101000000'), /already past/],
	])('%s', async (_name, fields, error) => {
		for (const accept of ['application/json', 'application/xml']) {
			const res = await send(sb, fields, { accept });
			expect(res.status).toBe(200);
			const { body, shown } = answerOf(res.text, accept);
			expect(shown).toEqual(['false', '0', 'false', '1000']);
			expect(body.error).toMatch(error);
			expect(body).not.toHaveProperty('batch_id');
		}
		expect(credits()).toBe(1000);
		expect(sb.received().batches).toHaveLength(0);
	});

	it('an empty validity_period counts as omitted', async () => {
		const res = await send(sb, { destination: '447700900001', message: 'x', validity_period: '' });
		expect(parseJsonLossless(res.text).accepted).toBe(true);
	});
});

describe('credits: per part per accepted destination', () => {
	const gsm160 = 'a'.repeat(160);
	it.each([
		['1 GSM-7 part', 'Hello', 1],
		['160 GSM-7 characters: 1 part', gsm160, 1],
		['161 GSM-7 characters: 2 parts of 153', `${gsm160}a`, 2],
		['extension characters cost 2 septets', '{'.repeat(81), 2],
		['UCS-2 beyond GSM-7: 70 units in 1 part', 'Ж'.repeat(70), 1],
		['71 UCS-2 units: 2 parts of 67', 'Ж'.repeat(71), 2],
		['35 emoji are 70 units: 1 part', '😀'.repeat(35), 1],
		['an emoji is never split: 134 units take 3 parts', `aa${'😀'.repeat(66)}`, 3],
		['305 septets where no escape straddles a boundary: 2 parts', `a${'{'.repeat(152)}`, 2],
		['an escape is never split: 306 septets take 3 parts', `aa${'{'.repeat(152)}`, 3],
	])('%s', async (_name, message, parts) => {
		const res = parseJsonLossless(
			(await send(sb, { destination: '447700900001,447700900002,0000', message })).text,
		);
		expect(res).toMatchObject({
			accepted: true,
			batch_size: 2,
			remaining_credits: 1000 - 2 * parts,
		});
		expect(sb.received().batches[0]).toMatchObject({ parts, credits_charged: 2 * parts });
	});

	const poor = { username: 'poor', password: 'pw' };
	it.each(['application/json', 'application/xml'])(
		'with too few credits the batch is not accepted and nothing is charged (%s)',
		async (accept) => {
			const fields = { destination: '447700900001,447700900002', message: 'a'.repeat(161) };
			const { body, shown } = answerOf(
				(await send(sb, fields, { auth: poor, accept })).text,
				accept,
			);
			expect(shown).toEqual(['false', '0', 'false', '3']);
			expect(body.error).toMatch(/insufficient credits: the batch needs 4 .* has 3/);
			expect(body).not.toHaveProperty('batch_id');
			expect(credits('poor')).toBe(3);
			expect(sb.received().batches).toHaveLength(0);
		},
	);

	it('credits that exactly cover the batch are enough, from that account alone', async () => {
		const fields = { destination: '447700900001,447700900002,447700900003', message: 'x' };
		const exact = parseJsonLossless((await send(sb, fields, { auth: poor })).text);
		expect(exact).toMatchObject({ accepted: true, remaining_credits: 0 });
		expect([credits('poor'), credits('demo')]).toEqual([0, 1000]);
	});
});

describe('HTTP edges', () => {
	it.each([
		[null, 'json'],
		['*/*', 'json'],
		['application/xml', 'xml'],
		['text/xml', 'xml'],
		['application/json', 'json'],
		['application/xml, */*;q=0.1', 'xml'],
		['application/json;q=0.5, application/xml', 'xml'],
		['application/*', 'json'],
	])('Accept %s answers %s', async (accept, format) => {
		const res = await send(sb, { destination: '447700900001', message: 'x' }, { accept });
		expect(res.headers.get('content-type')).toMatch(new RegExp(`^application/${format}`));
	});

	it('an Accept for neither JSON nor XML gets 406', async () => {
		const res = await send(
			sb,
			{ destination: '447700900001', message: 'x' },
			{ accept: 'text/html' },
		);
		expect(res.status).toBe(406);
		expect(credits()).toBe(1000);
	});

	it('a send that is not a form gets 415', async () => {
		const res = await send(
			sb,
			{},
			{ contentType: 'application/json', body: '{"destination":"447700900001","message":"x"}' },
		);
		expect(res.status).toBe(415);
		expect(credits()).toBe(1000);
	});

	it('the wrong method gets 405 with Allow; an unknown path 404', async () => {
		const get = await call(sb, '/api/sms/send');
		expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST']);
		const post = await call(sb, '/api/sms/get_status?batch_id=1', { method: 'POST' });
		expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET']);
		expect((await call(sb, '/api/sms/nothing')).status).toBe(404);
		expect((await call(sb, '/elsewhere')).status).toBe(404);
	});

	it('a form in UTF-8 keeps the message text', async () => {
		await send(sb, { destination: '447700900001', message: 'Grüße & 😀 + more' });
		expect(sb.received().batches[0].message).toBe('Grüße & 😀 + more');
	});

	it('the request log records what each request carried', async () => {
		await send(
			sb,
			{ destination: '447700900001', message: 'x', validity_period: '' },
			{ accept: 'application/xml' },
		);
		expect(sb.requests()).toEqual([
			expect.objectContaining({
				method: 'POST',
				path: '/api/sms/send',
				account: 'demo',
				accept: 'application/xml',
				form: { destination: '447700900001', message: 'x', validity_period: '' },
				outcome: 200,
			}),
		]);
	});

	it('keeps working with keep-alive and many requests in parallel', async () => {
		const all = await Promise.all(
			Array.from({ length: 20 }, (_, i) =>
				send(sb, { destination: `4477009000${String(i).padStart(2, '0')}`, message: 'x' }),
			),
		);
		expect(all.every((r) => r.status === 200)).toBe(true);
		expect(credits()).toBe(980);
		expect(new Set(all.map((r) => rawNumbers(r.text, 'batch_id')[0])).size).toBe(20);
	});
});

it('basic() encodes like a browser would', () => {
	expect(basic(DEMO.username, DEMO.password)).toBe('Basic ZGVtbzpkZW1vLXBhc3N3b3Jk');
});
