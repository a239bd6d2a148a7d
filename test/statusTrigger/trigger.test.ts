/**
 * The status trigger through n8n's webhook path (test/engine/webhook.ts: n8n-core's
 * WebhookContext behind HTTP on 127.0.0.1): who may call it, what starts a workflow, what it
 * emits, and what it remembers.
 */
import { ENTRY_LENGTH } from '../../nodes/BulkSmsStatusTrigger/memory';
import { startWebhookServer, type WebhookServer } from '../engine/webhook';
import {
	BATCH,
	captureWarnings,
	get,
	jsonReport,
	newProcess,
	post,
	SECRET,
	SESSION,
	startTrigger,
	triggerNode,
	triggerSpec,
	xmlReport,
} from './helpers';

let server: WebhookServer;
afterEach(() => server?.stop());

const emitted = () => server.executions().map((items) => items.map((i) => i.json));

/** The one answer a caller gets when it did not prove itself, whatever the method or reason. */
const UNAUTHENTICATED = {
	error: 'Not authenticated: this callback URL takes only callbacks that carry its secret',
};

const basic = (user: string, pw: string) => ({
	token: null,
	headers: { Authorization: `Basic ${Buffer.from(`${user}:${pw}`).toString('base64')}` },
});

describe('secure by default', () => {
	it.each<[string, string | null, string]>([
		['without a token', null, 'no ?token= in the callback URL'],
		['with a wrong token', 'guess', 'wrong token'],
		['with the secret in another case', SECRET.toUpperCase(), 'wrong token'],
	])(
		'refuses a callback %s with the one generic 401, the reason in the log only',
		async (_name, token, reason) => {
			const warnings = captureWarnings();
			try {
				server = await startTrigger();
				const res = await post(server, jsonReport(), 'application/json', { token });
				expect([res.status, JSON.parse(res.body)]).toEqual([401, UNAUTHENTICATED]);
				expect(warnings.lines).toEqual([`Bulk SMS Status Trigger refused a callback: ${reason}`]);
				expect(server.executions()).toEqual([]);
			} finally {
				warnings.restore();
			}
		},
	);

	it('with Basic Auth, takes the right user and password and refuses others alike', async () => {
		server = await startTrigger({
			parameters: { authentication: 'basicAuthCredential' },
			credentials: { bulkSmsCallbackBasicAuthApi: { user: 'sms', password: 'p:w' } },
		});
		const wrong = await post(server, jsonReport(), 'application/json', basic('sms', 'nope'));
		const none = await post(server, jsonReport(), 'application/json', { token: null });
		const token = await post(server, jsonReport(), 'application/json', { token: 'p:w' });
		for (const refused of [wrong, none, token]) {
			expect([refused.status, JSON.parse(refused.body)]).toEqual([401, UNAUTHENTICATED]);
			expect(refused.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
		}
		const right = await post(server, jsonReport(), 'application/json', basic('sms', 'p:w'));
		expect(right.status).toBe(200);
		expect(server.executions()).toHaveLength(1);
	});

	it('answers 401 alike whatever the method, so that a caller learns nothing of the setup', async () => {
		const answers: string[] = [];
		for (const options of [
			{},
			{
				parameters: { authentication: 'basicAuthCredential' },
				credentials: { bulkSmsCallbackBasicAuthApi: { user: 'sms', password: SECRET } },
			},
		]) {
			server = await startTrigger(options);
			const res = await post(server, jsonReport(), 'application/json', { token: 'guess' });
			answers.push(`${res.status} ${res.headers.get('www-authenticate')} ${res.body}`);
			await server.stop();
		}
		expect(new Set(answers).size).toBe(1);
	});

	it('never logs the secret or the body of what it refuses', async () => {
		const warnings = captureWarnings();
		try {
			server = await startTrigger();
			await post(server, jsonReport(), 'application/json', { token: `${SECRET}x` });
			await post(server, 'password=hunter2&user=alice', 'application/x-www-form-urlencoded');
			expect(warnings.lines).toEqual([
				'Bulk SMS Status Trigger refused a callback: wrong token',
				'Bulk SMS Status Trigger refused a callback that is not a delivery report: the form has none of the report fields (batch_id, msisdn, status, ...)',
			]);
		} finally {
			warnings.restore();
		}
	});
});

describe('what is not a delivery report', () => {
	it.each<[string, string, string]>([
		['an empty body', '', 'application/json'],
		['an HTML page', '<html><body>hi</body></html>', 'text/html'],
		['JSON of something else', '{"event":"ping"}', 'application/json'],
	])('%s gets 400 with a one-line reason and starts nothing', async (_name, body, type) => {
		server = await startTrigger();
		const res = await post(server, body, type);
		expect(res.status).toBe(400);
		const { error } = JSON.parse(res.body) as { error: string };
		expect(error).toMatch(/^Not a delivery report: /);
		expect(error).not.toContain('\n');
		expect(server.executions()).toEqual([]);
	});
});

describe('reads and emits', () => {
	it('emits one item per report, shaped as Get Status shapes them, dates in the credential zone', async () => {
		server = await startTrigger({ timeZone: 'Europe/Paris' });
		const body = `{"reports":[${jsonReport()},${jsonReport({ msisdn: '447700900006', status: 'UNDELIV', gateway_session_id: '18014398509481987' })}]}`;
		const res = await post(server, body);
		// What became of the reports, for a person reading the provider's delivery log.
		expect([res.status, JSON.parse(res.body)]).toEqual([
			200,
			{ received: 2, repeated: 0, late: 0, emitted: 2 },
		]);
		expect(emitted()).toEqual([
			[
				{
					batch_id: BATCH,
					msisdn: '447700900001',
					status: 'DELIVRD',
					outcome: 'delivered',
					final: true,
					network_id: 23410,
					gateway_session_id: SESSION,
					delivery_date: '2026-01-15T10:00:05.000+01:00',
					delivery_date_raw: '2026-01-15 10:00:05.0',
				},
				expect.objectContaining({ status: 'UNDELIV', outcome: 'failed', final: true }),
			],
		]);
	});

	it('keeps 19-digit ids exact although n8n parsed the JSON body with rounding', async () => {
		server = await startTrigger();
		await post(
			server,
			jsonReport({ batch_id: '9999999999999999001', gateway_session_id: '9223372036854775807' }),
		);
		expect(emitted()[0][0]).toMatchObject({
			batch_id: '9999999999999999001',
			gateway_session_id: '9223372036854775807',
		});
	});

	it('reads XML, form fields and a GET with query parameters alike; UTC without a credential', async () => {
		server = await startTrigger();
		const fields = {
			batch_id: BATCH,
			msisdn: '447700900001',
			network_id: '23410',
			gateway_session_id: SESSION,
			delivery_date: '260115100005',
		};
		await post(server, xmlReport({ status: 'DELIVRD' }), 'application/xml');
		await post(
			server,
			new URLSearchParams({ ...fields, status: 'EXPIRED' }).toString(),
			'application/x-www-form-urlencoded',
		);
		const got = await get(server, { ...fields, status: 'REJECTD', token: SECRET });
		expect(got.status).toBe(200);
		expect(emitted().map(([item]) => [item.status, item.delivery_date])).toEqual([
			['DELIVRD', '2026-01-15T10:00:05.000+00:00'],
			['EXPIRED', '2026-01-15T10:00:05.000+00:00'],
			['REJECTD', '2026-01-15T10:00:05.000+00:00'],
		]);
		expect(JSON.stringify(emitted())).not.toContain(SECRET);
	});
});

describe('repeats and filters', () => {
	it('acknowledges a repeated callback without starting the workflow again', async () => {
		server = await startTrigger();
		const first = await post(server, jsonReport());
		const again = await post(server, jsonReport());
		expect([first.status, again.status]).toEqual([200, 200]);
		expect(JSON.parse(again.body)).toEqual({ received: 1, repeated: 1, late: 0, emitted: 0 });
		expect(server.executions()).toHaveLength(1);
		const { memory } = server.staticData['node:Bulk SMS Status Trigger'] as { memory: string };
		expect(memory).toHaveLength(ENTRY_LENGTH); // one report, one entry
	});

	it('remembers across restarts of the receiver, through the saved static data', async () => {
		server = await startTrigger();
		await post(server, jsonReport());
		expect(server.executions()).toHaveLength(1); // so that "nothing after the restart" says something
		const saved = server.staticData;
		await server.stop();
		server = await startTrigger({ staticData: saved });
		await post(server, jsonReport());
		expect(server.executions()).toEqual([]);
	});

	it('keeps each trigger apart in one process: a report one trigger knows is news to another', async () => {
		const process = newProcess();
		server = await startTrigger({ process });
		const other = await startWebhookServer({
			...triggerSpec({ process }),
			node: { ...triggerNode(), id: 'another-trigger', webhookId: 'another-webhook' },
		});
		try {
			await post(server, jsonReport());
			expect(JSON.parse((await post(other, jsonReport())).body)).toMatchObject({ emitted: 1 });
		} finally {
			await other.stop();
		}
	});

	it('by default emits final statuses only: an ENROUTE starts nothing', async () => {
		server = await startTrigger();
		await post(server, jsonReport({ status: 'ENROUTE', delivery_date: '' }));
		expect(server.executions()).toEqual([]);
		await post(server, jsonReport({ status: 'DELIVRD' }));
		expect(emitted()).toEqual([[expect.objectContaining({ status: 'DELIVRD' })]]);
	});

	it('emits chosen statuses of chosen batches only (Every Status Change with Only Statuses)', async () => {
		server = await startTrigger({
			parameters: {
				emit: 'changes',
				options: { statuses: ['UNDELIV', 'ENROUTE'] },
				batchIds: `00${BATCH}, 42`,
			},
		});
		const body = `[${[
			jsonReport({ status: 'ENROUTE', delivery_date: '' }),
			jsonReport({ status: 'UNDELIV', gateway_session_id: '18014398509481987' }),
			jsonReport({ status: 'DELIVRD', gateway_session_id: '18014398509481989' }),
			jsonReport({ status: 'UNDELIV', batch_id: '43' }),
		].join(',')}]`;
		await post(server, body);
		expect(emitted()[0].map((r) => [r.batch_id, r.status])).toEqual([
			[BATCH, 'ENROUTE'],
			[BATCH, 'UNDELIV'],
		]);
	});

	it('with Final Statuses Only and Only Statuses, emits the final ones chosen', async () => {
		server = await startTrigger({ parameters: { options: { statuses: ['ENROUTE', 'UNDELIV'] } } });
		const body = `[${[
			jsonReport({ status: 'ENROUTE', delivery_date: '' }),
			jsonReport({ status: 'DELIVRD', gateway_session_id: '18014398509481989' }),
			jsonReport({ status: 'UNDELIV', gateway_session_id: '18014398509481987' }),
		].join(',')}]`;
		await post(server, body);
		expect(emitted()[0].map((r) => r.status)).toEqual(['UNDELIV']);
	});

	it('with every status change, emits ENROUTE too', async () => {
		server = await startTrigger({ parameters: { emit: 'changes' } });
		await post(server, jsonReport({ status: 'ENROUTE', delivery_date: '' }));
		expect(emitted()).toEqual([
			[expect.objectContaining({ status: 'ENROUTE', delivery_date: null })],
		]);
	});
});
