/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/** Status callbacks: what the sandbox POSTs, when, how often, and what it does when the receiver fails. */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseCli } from '../flags';
import { startSandbox, type Sandbox } from '../server';
import {
	call,
	jsonReports,
	parseJsonLossless,
	rawNumbers,
	send,
	sendOk,
	until,
	xmlReports,
} from './helpers';

const T0 = Date.UTC(2026, 0, 15, 10, 0, 0, 0);

interface Received {
	method: string;
	contentType?: string;
	authorization?: string;
	body: string;
}

/**
 * A callback receiver on 127.0.0.1: records every request and answers with what `answer` says
 * for the n-th one (a status, or 'hang' to never answer).
 */
class Receiver {
	readonly got: Received[] = [];
	answer: (n: number) => number | 'hang' = () => 200;
	private server!: Server;
	private readonly hanging = new Set<IncomingMessage>();
	url = '';

	async start(): Promise<this> {
		this.server = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (c: Buffer) => chunks.push(c));
			req.on('end', () => {
				this.got.push({
					method: req.method ?? '',
					contentType: req.headers['content-type'],
					authorization: req.headers.authorization,
					body: Buffer.concat(chunks).toString('utf8'),
				});
				const answer = this.answer(this.got.length);
				if (answer === 'hang') return void this.hanging.add(req);
				res.writeHead(answer).end();
			});
		});
		await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
		this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
		return this;
	}

	stop(): Promise<void> {
		for (const req of this.hanging) req.socket.destroy();
		this.server.closeAllConnections();
		return new Promise((r) => this.server.close(() => r()));
	}

	statuses(): string[] {
		return this.got.flatMap((g) => jsonReports(g.body).map((r) => String(r.status)));
	}
}

let sb: Sandbox;
let receiver: Receiver;
beforeEach(async () => {
	receiver = await new Receiver().start();
	sb = await startSandbox({
		timeScale: 0,
		startTime: T0,
		callbacks: { retryBaseMs: 10, timeoutMs: 300 },
	});
	await sb.upsertAccount({ username: 'demo', callbackUrl: receiver.url });
});
afterEach(async () => {
	await sb.stop();
	await receiver.stop();
});

it('answers receive_updates true for an account with a callback URL, false for others', async () => {
	await sb.upsertAccount({ username: 'quiet', password: 'pw', credits: 5 });
	const withUrl = parseJsonLossless(
		(await send(sb, { destination: '447700900001', message: 'hi' })).text,
	);
	const without = parseJsonLossless(
		(
			await send(
				sb,
				{ destination: '447700900001', message: 'hi' },
				{ auth: { username: 'quiet', password: 'pw' } },
			)
		).text,
	);
	expect([withUrl.receive_updates, without.receive_updates]).toEqual([true, false]);
	await sb.callbacksIdle();
	expect(receiver.got).toHaveLength(1); // only the batch of the account with a URL
});

it('POSTs ENROUTE at send and the final status later, as get_status writes reports in JSON', async () => {
	const id = await sendOk(sb, { destination: '447700900001', message: 'hi' });
	await sb.callbacksIdle();
	sb.advance(5000);
	await sb.callbacksIdle();
	expect(receiver.got.map((g) => [g.method, g.contentType])).toEqual([
		['POST', 'application/json; charset=utf-8'],
		['POST', 'application/json; charset=utf-8'],
	]);
	const [enroute, delivered] = receiver.got.map((g) => g.body);
	// Ids are bare numbers of full precision, exactly as get_status writes them.
	expect(rawNumbers(enroute, 'batch_id')).toEqual([id]);
	expect(jsonReports(enroute)[0]).toMatchObject({
		batch_id: id,
		status: 'ENROUTE',
		msisdn: '447700900001',
		delivery_date: '',
	});
	const status = await call(sb, `/api/sms/get_status?batch_id=${id}`);
	expect(delivered).toBe(status.text);
	expect(jsonReports(delivered)[0].delivery_date).toBe('2026-01-15 10:00:05.0');
});

it('writes XML callbacks with yyMMddHHmmss dates, several reports per callback when asked', async () => {
	sb.setCallbacks({ batchSize: 2, retryBaseMs: 10 });
	await sb.upsertAccount({ username: 'demo', callbackFormat: 'xml' });
	await sendOk(sb, { destination: '447700900001,447700900006,447700900007', message: 'hi' });
	sb.advance(5000);
	await sb.callbacksIdle();
	const docs = receiver.got.map((g) => xmlReports(g.body));
	expect(receiver.got[0].contentType).toBe('application/xml; charset=utf-8');
	expect(docs.map((d) => d.length)).toEqual([2, 1, 2, 1]);
	const finals = docs.slice(2).flat();
	expect(finals.map((r) => r.status)).toEqual(['DELIVRD', 'UNDELIV', 'REJECTD']);
	expect(finals[0].delivery_date).toBe('260115100005');
});

it('calls a URL with user:pass@ with HTTP Basic, and never shows the password', async () => {
	const withPassword = receiver.url.replace('http://', 'http://hook:s%3Acret@');
	await sb.upsertAccount({ username: 'demo', callbackUrl: withPassword });
	await sendOk(sb, { destination: '447700900001', message: 'hi' });
	await sb.callbacksIdle();
	expect(receiver.got[0].authorization).toBe(
		`Basic ${Buffer.from('hook:s:cret').toString('base64')}`,
	);
	const view = JSON.stringify([sb.callbacks(), sb.accounts()]);
	expect(view).not.toContain('cret');
	expect(sb.callbacks().callbacks[0].url).toContain('hook:***@');
});

it('retries a receiver that is down for a while, with backoff, until it acknowledges', async () => {
	receiver.answer = (n) => (n <= 3 ? 503 : 200);
	await sendOk(sb, { destination: '447700900001', message: 'hi' });
	await sb.callbacksIdle();
	const { totals, callbacks } = sb.callbacks();
	expect(callbacks[0].attempts.map((a) => a.outcome)).toEqual([503, 503, 503, 200]);
	expect(callbacks[0].state).toBe('acknowledged');
	expect(totals).toMatchObject({ callbacks: 1, sent: 4, retried: 3, acknowledged: 1, failed: 0 });
});

it('counts a receiver that does not answer in time as failed, and tries again', async () => {
	receiver.answer = (n) => (n === 1 ? 'hang' : 200);
	await sendOk(sb, { destination: '447700900001', message: 'hi' });
	await sb.callbacksIdle();
	expect(sb.callbacks().callbacks[0].attempts.map((a) => a.outcome)).toEqual(['timeout', 200]);
	expect(receiver.got).toHaveLength(2); // the same callback twice: the receiver sees a repeat
	expect(receiver.got[1].body).toBe(receiver.got[0].body);
});

it('gives up after the bounded number of tries, and says so in the admin view', async () => {
	sb.setCallbacks({ maxAttempts: 3, retryBaseMs: 5 });
	receiver.answer = () => 500;
	await sendOk(sb, { destination: '447700900001', message: 'hi' });
	await sb.callbacksIdle();
	const view = await call(sb, '/_sandbox/callbacks', { auth: null });
	const body = JSON.parse(view.text);
	expect(body.totals).toMatchObject({
		sent: 3,
		retried: 2,
		acknowledged: 0,
		failed: 1,
		pending: 0,
	});
	expect(body.callbacks[0]).toMatchObject({ state: 'failed', account: 'demo', format: 'json' });
});

it('tries again a receiver that refuses the connection', async () => {
	await receiver.stop();
	sb.setCallbacks({ maxAttempts: 2, retryBaseMs: 5 });
	await sendOk(sb, { destination: '447700900001', message: 'hi' });
	await sb.callbacksIdle();
	const attempts = sb.callbacks().callbacks[0].attempts.map((a) => a.outcome);
	expect(attempts).toEqual(['error: ECONNREFUSED', 'error: ECONNREFUSED']);
	receiver = await new Receiver().start(); // for afterEach
});

describe('faults', () => {
	it('duplicate: the same callback is sent again after it was acknowledged', async () => {
		sb.queueCallbackFaults('duplicate');
		await sendOk(sb, { destination: '447700900001', message: 'hi' });
		await sb.callbacksIdle();
		expect(receiver.got.map((g) => g.body)).toEqual([receiver.got[0].body, receiver.got[0].body]);
		expect(sb.callbacks().totals).toMatchObject({ callbacks: 1, sent: 2, duplicated: 1 });
	});

	it('reorder: a callback is overtaken by the next one (a final status before its ENROUTE)', async () => {
		receiver.answer = () => 200;
		sb.queueCallbackFaults('reorder');
		await sendOk(sb, { destination: '447700900001', message: 'hi' });
		sb.advance(5000);
		await sb.callbacksIdle();
		expect(receiver.statuses()).toEqual(['DELIVRD', 'ENROUTE']);
	});

	it('reorder with nothing to overtake it: sent after a short hold', async () => {
		sb.queueCallbackFaults('reorder');
		await sendOk(sb, { destination: '447700900001', message: 'hi' });
		await sb.callbacksIdle();
		expect(receiver.statuses()).toEqual(['ENROUTE']);
	});

	it('delay: the callback waits before its first try, then arrives', async () => {
		sb.setCallbacks({ delayMs: 500, retryBaseMs: 10 });
		sb.queueCallbackFaults('delay');
		const sentAt = Date.now();
		await sendOk(sb, { destination: '447700900001', message: 'hi' });
		await sb.callbacksIdle();
		expect(Date.now() - sentAt).toBeGreaterThanOrEqual(490); // delayMs, less a timer's slack
		expect(receiver.statuses()).toEqual(['ENROUTE']);
		expect(sb.callbacks().callbacks[0].faults).toEqual(['delay']);
	});

	it('burst: the first try goes out as several copies at once; one 2xx acknowledges it', async () => {
		sb.setCallbacks({ burstCopies: 4, retryBaseMs: 10 });
		receiver.answer = (n) => (n === 1 ? 200 : 500); // only the first copy to arrive is taken
		sb.queueCallbackFaults('burst');
		await sendOk(sb, { destination: '447700900001', message: 'hi' });
		await sb.callbacksIdle();
		expect(new Set(receiver.got.map((g) => g.body)).size).toBe(1);
		expect(receiver.got).toHaveLength(4);
		const [callback] = sb.callbacks().callbacks;
		expect([callback.state, callback.attempts.filter((a) => a.duplicate).length]).toEqual([
			'acknowledged',
			3,
		]);
		expect(sb.callbacks().totals).toMatchObject({ callbacks: 1, sent: 4, duplicated: 3 });
	});

	it('several callbacks to one URL under way at once, when asked: later ones may overtake', async () => {
		let open = 0;
		let most = 0;
		receiver.answer = () => {
			most = Math.max(most, ++open);
			return 'hang';
		};
		sb.setCallbacks({ inFlight: 3, timeoutMs: 200, maxAttempts: 1 });
		await sendOk(sb, { destination: '447700900001,447700900002,447700900003', message: 'x' });
		await sb.callbacksIdle();
		expect([most, receiver.got.length]).toEqual([3, 3]);
		expect(() => sb.setCallbacks({ inFlight: 0 })).toThrow('inFlight must be a whole number');
	});

	it('shares are drawn with a seed, so a run repeats exactly', async () => {
		const faultsOf = async () => {
			sb.setCallbacks({ duplicateRate: 0.5, reorderRate: 0.3, seed: 7, retryBaseMs: 5 });
			await sendOk(sb, { destination: '447700900001,447700900002,447700900003', message: 'x' });
			await sb.callbacksIdle();
			return sb
				.callbacks()
				.callbacks.slice(-3)
				.map((c) => c.faults);
		};
		const first = await faultsOf();
		expect(first.flat().length).toBeGreaterThan(0); // else two fault-free runs would match
		expect(await faultsOf()).toEqual(first);
	});

	it('refuses unknown settings and fault kinds', async () => {
		expect(() => sb.setCallbacks({ duplicateRate: 2 })).toThrow(
			'duplicateRate must be from 0 to 1',
		);
		const bad = await call(sb, '/_sandbox/callbacks/faults/queue', {
			auth: null,
			method: 'POST',
			body: JSON.stringify({ faults: ['lost'] }),
		});
		expect([bad.status, JSON.parse(bad.text).error]).toEqual([
			400,
			'faults must be a list of duplicate, reorder, delay, burst',
		]);
	});
});

it('a forced status (DELETED after DELIVRD) is called back too', async () => {
	await sendOk(sb, { destination: '447700900001', message: 'hi' });
	sb.advance(5000);
	await sb.callbacksIdle();
	const session = sb.received().batches[0].messages[0].gateway_session_id;
	await sb.forceStatus(session, 'DELETED');
	await sb.callbacksIdle();
	expect(receiver.statuses()).toEqual(['ENROUTE', 'DELIVRD', 'DELETED']);
});

it('the admin view sets a callback URL at run time and removes it', async () => {
	const admin = (path: string, method: string, body: unknown) =>
		call(sb, path, { auth: null, method, body: JSON.stringify(body) });
	await admin('/_sandbox/accounts/demo', 'PUT', { callback_url: null });
	expect(
		parseJsonLossless((await send(sb, { destination: '447700900001', message: 'a' })).text),
	).toMatchObject({ receive_updates: false });
	const set = await admin('/_sandbox/accounts/demo', 'PUT', {
		callback_url: receiver.url,
		callback_format: 'xml',
	});
	expect(JSON.parse(set.text).accounts[0]).toMatchObject({
		callback_url: receiver.url,
		callback_format: 'xml',
	});
	const bad = await admin('/_sandbox/accounts/demo', 'PUT', { callback_url: 'ftp://x' });
	expect(JSON.parse(bad.text).error).toBe('a callback URL starts with http:// or https://');
	await sendOk(sb, { destination: '447700900001', message: 'b' });
	await sb.callbacksIdle();
	expect(receiver.got).toHaveLength(1);
	const settings = await admin('/_sandbox/callbacks/settings', 'PUT', { batchSize: 10 });
	expect(JSON.parse(settings.text)).toMatchObject({ batchSize: 10, maxAttempts: 5 });
});

describe('command line', () => {
	it('gives every account, or one named account, a callback URL and its settings', () => {
		const all = parseCli(
			['--account', 'a:pw:1', '--account', 'b:pw:1', '--callback-url', 'http://127.0.0.1:9/x'],
			{},
		).options;
		expect(all.accounts.map((a) => a.callbackUrl)).toEqual([
			'http://127.0.0.1:9/x',
			'http://127.0.0.1:9/x',
		]);
		const one = parseCli(['--account', 'a:pw:1', '--account', 'b:pw:1'], {
			SANDBOX_CALLBACK_URL: 'b=http://u:p@127.0.0.1:9/y',
			SANDBOX_CALLBACK_FORMAT: 'xml',
			SANDBOX_CALLBACK_BATCH: '50',
			SANDBOX_CALLBACK_DUPLICATE_RATE: '0.1',
			SANDBOX_CALLBACK_IN_FLIGHT: '4',
			SANDBOX_CALLBACK_BURST_RATE: '0.2',
			SANDBOX_CALLBACK_BURST_COPIES: '3',
		}).options;
		expect(one.accounts.map((a) => [a.callbackUrl, a.callbackFormat])).toEqual([
			[undefined, undefined],
			['http://u:p@127.0.0.1:9/y', 'xml'],
		]);
		expect(one.callbacks).toMatchObject({
			batchSize: 50,
			duplicateRate: 0.1,
			inFlight: 4,
			burstRate: 0.2,
			burstCopies: 3,
		});
	});

	it('refuses a callback URL for an unknown account, or of another scheme', () => {
		expect(() => parseCli(['--callback-url', 'nobody=http://127.0.0.1:9/'], {})).toThrow(
			'callback-url: no account "nobody"',
		);
		expect(() => parseCli(['--callback-url', 'mailto:x@y'], {})).toThrow('http:// or https://');
	});
});

it('stops cleanly while a callback is being retried', async () => {
	receiver.answer = () => 503;
	sb.setCallbacks({ retryBaseMs: 60_000 });
	await sendOk(sb, { destination: '447700900001', message: 'hi' });
	await until(() => receiver.got.length > 0);
	expect(receiver.got).toHaveLength(1); // refused: its retry is due in a minute
	await sb.stop();
	sb = await startSandbox({ timeScale: 0 }); // for afterEach
});
