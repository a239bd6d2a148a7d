/**
 * Every report a callback carries is remembered, emitted or filtered out; copies that arrive
 * together start the workflow once, in one process and across processes that share n8n's
 * database; the time zone comes from the credential's field alone. Through n8n's webhook path
 * (test/engine/webhook.ts), answering as n8n does once an execution has started where it matters.
 */
import type { IDataObject } from 'n8n-workflow';

import { processedLookups } from '../engine/deduplication';
import { startWebhookServer, type WebhookServer } from '../engine/webhook';
import { jsonReport, newProcess, post, startTrigger, triggerSpec } from './helpers';

let servers: WebhookServer[] = [];
afterEach(async () => {
	await Promise.all(servers.map((s) => s.stop()));
	servers = [];
});

async function started(...args: Parameters<typeof startTrigger>): Promise<WebhookServer> {
	const server = await startTrigger(...args);
	servers.push(server);
	return server;
}

const A = { msisdn: '447700900001', gateway_session_id: '18014398509481985' };
const B = { msisdn: '447700900002', gateway_session_id: '18014398509481987' };
const statuses = (server: WebhookServer) =>
	server
		.executions()
		.map((items) => items.map((i) => `${String(i.json.msisdn)} ${String(i.json.status)}`));
const answerOf = (body: string) => JSON.parse(body) as Record<string, number>;
const chosen = { emit: 'changes', options: { statuses: ['ENROUTE', 'DELIVRD'] } };

describe('remembers everything a callback carried', () => {
	it('leaves out an ENROUTE whose final status came in a callback that started the workflow, filtered out', async () => {
		const server = await started({ parameters: chosen });
		await post(server, `[${jsonReport({ ...A, status: 'EXPIRED' })},${jsonReport({ ...B })}]`);
		const late = await post(server, jsonReport({ ...A, status: 'ENROUTE', delivery_date: '' }));
		expect(answerOf(late.body)).toEqual({ received: 1, repeated: 0, late: 1, emitted: 0 });
		const again = await post(server, jsonReport({ ...A, status: 'EXPIRED' }));
		expect(answerOf(again.body)).toEqual({ received: 1, repeated: 1, late: 0, emitted: 0 });
		expect(statuses(server)).toEqual([['447700900002 DELIVRD']]);
	});

	it('still knows it after a restart, from the stored memory', async () => {
		const first = await started({ parameters: chosen });
		await post(first, `[${jsonReport({ ...A, status: 'EXPIRED' })},${jsonReport({ ...B })}]`);
		await first.stop();
		const restarted = await started({ parameters: chosen, staticData: first.staticData });
		const late = await post(restarted, jsonReport({ ...A, status: 'ENROUTE', delivery_date: '' }));
		expect(answerOf(late.body)).toMatchObject({ late: 1, emitted: 0 });
		expect(restarted.executions()).toEqual([]);
	});
});

describe('copies that arrive together', () => {
	const COPIES = 20;
	const copies = (server: WebhookServer, body: string) =>
		Promise.all(Array.from({ length: COPIES }, () => post(server, body)));

	it('start the workflow once in one process, the others answered as repeats', async () => {
		const server = await started({ answer: 'started' });
		const lookups = processedLookups();
		const answers = await copies(server, jsonReport(A));
		await server.idle();
		// The process that received them told them apart: n8n's deduplication store was not needed.
		expect(processedLookups()).toBe(lookups);
		expect(statuses(server)).toEqual([['447700900001 DELIVRD']]);
		const repeats = answers.filter((a) => answerOf(a.body).repeated === 1);
		expect([answers.every((a) => a.status === 200), repeats.length]).toEqual([true, COPIES - 1]);
	});

	it('split between two receiving processes, start it at most twice and emit the report once', async () => {
		const staticData = {};
		const worker = newProcess();
		const main = await started({ answer: 'started', staticData, worker });
		const webhookProcess = await started({ answer: 'started', staticData, worker });
		const body = jsonReport(A);
		await Promise.all([copies(main, body), copies(webhookProcess, body)]);
		await Promise.all([main.idle(), webhookProcess.idle()]);
		const runs = [...main.executions(), ...webhookProcess.executions()];
		expect(runs.length).toBeLessThanOrEqual(2);
		expect(runs.flat().map((item) => item.json.status)).toEqual(['DELIVRD']);
	});
});

describe('copies received by two processes, run by two workers (queue mode)', () => {
	it('emit each report once: the executions claim it in the deduplication store', async () => {
		const staticData = {};
		const main = await started({ answer: 'started', staticData, worker: newProcess() });
		const webhookProcess = await started({ answer: 'started', staticData, worker: newProcess() });
		const rounds = Array.from({ length: 10 }, (_, i) =>
			jsonReport({ gateway_session_id: String(18014398509481985n + 2n * BigInt(i)) }),
		);
		for (const body of rounds) {
			await Promise.all([post(main, body), post(webhookProcess, body)]);
		}
		await Promise.all([main.idle(), webhookProcess.idle()]);
		const runs = [...main.executions(), ...webhookProcess.executions()];
		expect(runs).toHaveLength(20); // each process started an execution for each report
		const sessions = runs.flat().map((item) => String(item.json.gateway_session_id));
		expect(sessions.sort()).toEqual([...new Set(sessions)].sort());
		expect(sessions).toHaveLength(10);
	});

	it("emit a repeat once, received later by a process that never knew it: the first claim is in n8n's deduplication store", async () => {
		const staticData: Record<string, unknown> = {};
		const main = await started({
			answer: 'started',
			staticData: staticData as IDataObject,
			worker: newProcess(),
		});
		await post(main, jsonReport(A));
		await main.idle();
		// Another receiving process, whose workflow data lost the report (a save that another
		// process's overwrote), and another worker.
		delete (staticData['node:Bulk SMS Status Trigger'] as Record<string, unknown>).memory;
		const other = await started({
			answer: 'started',
			staticData: staticData as IDataObject,
			worker: newProcess(),
		});
		const repeat = await post(other, jsonReport(A));
		await other.idle();
		expect(answerOf(repeat.body)).toMatchObject({ repeated: 0, emitted: 1 }); // news to it
		expect([...statuses(main), ...statuses(other)].flat()).toEqual(['447700900001 DELIVRD']);
	});
});

describe('callbacks with news that arrive together', () => {
	/** 30 callbacks: finals of 24 messages, 3 of them twice, and 3 ENROUTEs after their final. */
	function campaign(): string[] {
		const message = (i: number) => ({
			msisdn: `4477009${String(i).padStart(5, '0')}`,
			gateway_session_id: String(18014398509481985n + 2n * BigInt(i)),
		});
		const finals = Array.from({ length: 24 }, (_, i) =>
			jsonReport({ ...message(i), status: i % 3 ? 'DELIVRD' : 'UNDELIV' }),
		);
		const late = [0, 1, 2].map((i) =>
			jsonReport({ ...message(i), status: 'ENROUTE', delivery_date: '' }),
		);
		return [...finals, finals[5], finals[6], finals[7], ...late];
	}
	const emitted = (server: WebhookServer) =>
		server
			.executions()
			.flat()
			.map(({ json }) => `${String(json.gateway_session_id)} ${String(json.status)}`)
			.sort();

	it('share fewer executions and emit what one at a time emits; those that waited get their own counts', async () => {
		const alone = await started({ parameters: { emit: 'changes' } });
		for (const body of campaign()) await post(alone, body);
		const together = await started({ parameters: { emit: 'changes' }, answer: 'started' });
		const answers = await Promise.all(campaign().map((body) => post(together, body)));
		await together.idle();
		expect(emitted(together)).toEqual(emitted(alone));
		expect(emitted(together)).toHaveLength(24);
		expect(together.executions().length).toBeLessThan(24);
		const waited = answers.map((a) => answerOf(a.body)).filter((a) => a.emitted === 1);
		expect(waited.length).toBeGreaterThan(0);
		expect(waited.every((a) => a.received === 1 && a.repeated === 0)).toBe(true);
	});

	it('that wait for an execution which could not start are answered 503, and their retry is news', async () => {
		// Starts take long enough for all to gather behind the first, whose execution starts.
		const server = await started({
			parameters: { emit: 'changes' },
			answer: 'started',
			startMs: 300,
		});
		server.refuseExecution(2);
		const bodies = [jsonReport(A), ...campaign().slice(0, 10)];
		const answers = await Promise.all(bodies.map((body) => post(server, body)));
		await server.idle();
		expect(answers.map((a) => a.status).sort()).toEqual([200, 500, ...Array(9).fill(503)]);
		for (const [i, body] of bodies.entries()) {
			if (answers[i].status !== 200) expect((await post(server, body)).status).toBe(200);
		}
		await server.idle();
		expect(emitted(server)).toHaveLength(11);
		expect(new Set(emitted(server)).size).toBe(11);
	});
});

describe("the editor's tests", () => {
	it('remember nothing that production would take for a repeat', async () => {
		const staticData = {};
		const testing = await started({ staticData, mode: 'manual' });
		expect(answerOf((await post(testing, jsonReport(A))).body)).toMatchObject({ emitted: 1 });
		await testing.stop();
		const production = await started({ staticData, process: undefined });
		await post(production, jsonReport(A));
		expect(statuses(production)).toEqual([['447700900001 DELIVRD']]);
	});
});

describe('the time zone', () => {
	it('refuses activation when the Bulk SMS credential names no time zone, with a sentence', async () => {
		const starting = startTrigger({ timeZone: 'Europe/Berlim' });
		starting.then(
			(server) => servers.push(server),
			() => undefined,
		);
		await expect(starting).rejects.toMatchObject({
			message: expect.stringMatching(/Europe\/Berlim.*time zone|time zone.*Europe\/Berlim/i),
		});
	});

	it('keeps nothing of a callback whose dates it cannot read, so that the retry after the fix is news', async () => {
		const spec = triggerSpec({ timeZone: 'UTC', answer: 'started' });
		const server = await startWebhookServer(spec);
		servers.push(server);
		spec.credentials!.bulkSmsApi.timeZone = 'Europe/Berlim'; // mistyped after activation
		const refused = await post(server, jsonReport(A));
		await server.idle();
		expect(refused.status).toBeGreaterThanOrEqual(500);
		spec.credentials!.bulkSmsApi.timeZone = 'Europe/Berlin';
		// The credential is read again once what was read lately is 10 s old.
		const later = Date.now() + 10_001;
		const clock = jest.spyOn(Date, 'now').mockImplementation(() => later);
		const retried = await post(server, jsonReport(A)).finally(() => clock.mockRestore());
		await server.idle();
		expect([retried.status, answerOf(retried.body).emitted]).toEqual([200, 1]);
		expect(statuses(server).flat()).toEqual(['447700900001 DELIVRD']);
	});

	it("comes from the credential's field alone: a Base URL that does not parse stops nothing", async () => {
		const server = await started({ timeZone: 'Europe/Paris', baseUrl: 'not a url' });
		const res = await post(server, jsonReport(A));
		expect(res.status).toBe(200);
		expect(server.executions()[0][0].json.delivery_date).toBe('2026-01-15T10:00:05.000+01:00');
	});
});
