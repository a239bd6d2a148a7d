/**
 * The Bulk SMS Trigger through n8n-core's real PollContext against the sandbox, on a frozen
 * sandbox clock that only the tests move.
 */
import { PollContext } from 'n8n-core';
import type { IDataObject } from 'n8n-workflow';

import { sendDirect } from '../../sandbox/client';
import type { Sandbox } from '../../sandbox/server';
import { readBatchId } from '../../nodes/shared/domain/batchId';
import { triggerProperties } from '../../nodes/BulkSmsTrigger/description';
import { HarnessCredentialsHelper } from '../engine/credentials';
import { changes, FINAL_AFTER_MS, frozenSandbox, NUMBER, Proxy, Watcher } from './helpers';

let sb: Sandbox;
let proxy: Proxy | undefined;

beforeEach(async () => {
	sb = await frozenSandbox();
});

afterEach(async () => {
	jest.restoreAllMocks();
	await proxy?.stop();
	proxy = undefined;
	await sb.stop();
});

function statusRequests(): string[] {
	return sb
		.requests()
		.filter((r) => r.path === '/api/sms/get_status')
		.map((r) => new URLSearchParams(r.query).get('batch_id') ?? '');
}

const D1 = NUMBER.delivered(1);
const U1 = NUMBER.undeliverable(1);
const N1 = NUMBER.neverFinal(1);

describe('first poll', () => {
	it('is the baseline: nothing emitted, what changes later is', async () => {
		const batchId = await sendDirect(sb.baseUrl, [D1, U1, N1]);
		const watcher = new Watcher(sb.baseUrl, { batchIds: batchId, emit: 'final' });
		expect(await watcher.emitted()).toEqual([]);
		sb.advance(FINAL_AFTER_MS);
		const items = await watcher.emitted();
		expect(changes(items)).toEqual([`${D1} ENROUTE>DELIVRD`, `${U1} ENROUTE>UNDELIV`]);
		expect(await watcher.emitted()).toEqual([]);
	});

	it('emits a report with the Get Status fields and previous_status, ids exact', async () => {
		const batchId = await sendDirect(sb.baseUrl, [D1, N1]);
		const watcher = new Watcher(sb.baseUrl, { batchIds: batchId, emit: 'final' });
		await watcher.emitted();
		sb.advance(FINAL_AFTER_MS);
		const [item] = await watcher.emitted();
		expect(item).toEqual({
			batch_id: batchId,
			msisdn: D1,
			status: 'DELIVRD',
			previous_status: 'ENROUTE',
			outcome: 'delivered',
			final: true,
			network_id: 23410,
			gateway_session_id: expect.stringMatching(/^\d{17,}$/),
			delivery_date: '2026-11-20T10:00:05.000+00:00',
			delivery_date_raw: '2026-11-20 10:00:05.0',
		});
		expect(batchId.length).toBe(16); // beyond 2^53: a number would have changed it
		expect(BigInt(batchId) > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
	});

	it('with "Include Statuses Found at Start", emits what is already there once', async () => {
		const batchId = await sendDirect(sb.baseUrl, [D1, N1]);
		sb.advance(FINAL_AFTER_MS);
		const watcher = new Watcher(sb.baseUrl, {
			batchIds: batchId,
			emit: 'changes',
			emitExisting: true,
		});
		expect(changes(await watcher.emitted())).toEqual([`${D1} ->DELIVRD`, `${N1} ->ENROUTE`]);
		expect(await watcher.emitted()).toEqual([]);
	});
});

describe("a pasted batch (yesterday's campaign, already final when first read)", () => {
	it('is reported once, though Include Statuses Found at Start is off; a batch in progress stays a baseline', async () => {
		const yesterday = await sendDirect(sb.baseUrl, [D1, U1]);
		sb.advance(FINAL_AFTER_MS);
		const today = await sendDirect(sb.baseUrl, [NUMBER.delivered(2), N1]);
		const watcher = new Watcher(sb.baseUrl, {
			batchIds: `${yesterday}, ${today}`,
			emit: 'final',
		});
		const first = await watcher.emitted();
		expect(changes(first)).toEqual([`${D1} ->DELIVRD`, `${U1} ->UNDELIV`]);
		expect(first.every((item) => item.batch_id === yesterday)).toBe(true);
		// Emitted, so saved: a restart does not report it again.
		watcher.restart();
		expect(await watcher.emitted()).toEqual([]);
		sb.advance(FINAL_AFTER_MS);
		expect(changes(await watcher.emitted())).toEqual([`${NUMBER.delivered(2)} ENROUTE>DELIVRD`]);
		expect(await watcher.emitted()).toEqual([]);
	});

	it('with Batch Finished, its summary comes on the read that confirms it, then never again', async () => {
		const yesterday = await sendDirect(sb.baseUrl, [D1, U1]);
		sb.advance(FINAL_AFTER_MS);
		const watcher = new Watcher(sb.baseUrl, { batchIds: yesterday, emit: 'batchFinal' });
		expect(await watcher.emitted()).toEqual([]);
		expect(await watcher.emitted()).toEqual([
			{
				batch_id: yesterday,
				total: 2,
				by_status: { DELIVRD: 1, UNDELIV: 1 },
				by_outcome: { delivered: 1, failed: 1, pending: 0 },
				all_final: true,
			},
		]);
		const asked = statusRequests().length;
		expect(await watcher.emitted()).toEqual([]);
		expect(statusRequests()).toHaveLength(asked);
	});

	it('the editor says so beside Include Statuses Found at Start', () => {
		const option = triggerProperties.find((property) => property.name === 'emitExisting');
		expect(option?.description).toMatch(
			/already finished when first read is reported all the same/,
		);
	});
});

describe('emit modes', () => {
	it('every status change: ENROUTE on the first poll (when asked), then each change', async () => {
		const batchId = await sendDirect(sb.baseUrl, [D1, U1, N1]);
		const watcher = new Watcher(sb.baseUrl, {
			batchIds: batchId,
			emit: 'changes',
			emitExisting: true,
		});
		expect(changes(await watcher.emitted())).toEqual([
			`${D1} ->ENROUTE`,
			`${U1} ->ENROUTE`,
			`${N1} ->ENROUTE`,
		]);
		sb.advance(FINAL_AFTER_MS);
		expect(changes(await watcher.emitted())).toEqual([
			`${D1} ENROUTE>DELIVRD`,
			`${U1} ENROUTE>UNDELIV`,
		]);
		const [, , never] = sb.received().batches[0].messages;
		await sb.forceStatus(never.gateway_session_id, 'DELETED');
		expect(changes(await watcher.emitted())).toEqual([`${N1} ENROUTE>DELETED`]);
		expect(await watcher.emitted()).toEqual([]);
	});

	it('final statuses only', async () => {
		const batchId = await sendDirect(sb.baseUrl, [D1, U1, N1]);
		const watcher = new Watcher(sb.baseUrl, {
			batchIds: batchId,
			emit: 'final',
			emitExisting: true,
		});
		expect(await watcher.emitted()).toEqual([]);
		sb.advance(FINAL_AFTER_MS);
		expect(changes(await watcher.emitted())).toEqual([
			`${D1} ENROUTE>DELIVRD`,
			`${U1} ENROUTE>UNDELIV`,
		]);
	});

	it('batch finished: one summary with the counts, then the batch is never requested again', async () => {
		const destinations = [D1, NUMBER.accepted(1), U1, NUMBER.rejected(1)];
		const batchId = await sendDirect(sb.baseUrl, destinations);
		const watcher = new Watcher(sb.baseUrl, { batchIds: batchId, emit: 'batchFinal' });
		expect(await watcher.emitted()).toEqual([]);
		sb.advance(FINAL_AFTER_MS);
		// Every report final once: one more read confirms it (a report left out would show there).
		expect(await watcher.emitted()).toEqual([]);
		expect(await watcher.emitted()).toEqual([
			{
				batch_id: batchId,
				total: 4,
				by_status: { DELIVRD: 1, ACCEPTD: 1, UNDELIV: 1, REJECTD: 1 },
				by_outcome: { delivered: 2, failed: 2, pending: 0 },
				all_final: true,
			},
		]);
		const asked = statusRequests().length;
		expect(await watcher.emitted()).toEqual([]);
		expect(statusRequests()).toHaveLength(asked);
	});
});

describe('status filter', () => {
	it('emits only reports reaching the chosen statuses, and never the others later', async () => {
		const batchId = await sendDirect(sb.baseUrl, [D1, U1, NUMBER.rejected(1), N1]);
		const watcher = new Watcher(sb.baseUrl, {
			batchIds: batchId,
			emit: 'changes',
			statuses: ['UNDELIV', 'REJECTD'],
		});
		await watcher.emitted();
		sb.advance(FINAL_AFTER_MS);
		expect(changes(await watcher.emitted())).toEqual(
			[`${U1} ENROUTE>UNDELIV`, `${NUMBER.rejected(1)} ENROUTE>REJECTD`].sort(),
		);
		expect(await watcher.emitted()).toEqual([]);
	});

	it('with Batch Finished, the summary counts all and lists the filtered reports', async () => {
		const batchId = await sendDirect(sb.baseUrl, [D1, U1]);
		const watcher = new Watcher(sb.baseUrl, {
			batchIds: batchId,
			emit: 'batchFinal',
			statuses: ['UNDELIV'],
		});
		await watcher.emitted();
		sb.advance(FINAL_AFTER_MS);
		expect(await watcher.emitted()).toEqual([]);
		const [summary] = await watcher.emitted();
		expect(summary.total).toBe(2);
		expect((summary.reports as IDataObject[]).map((r) => r.msisdn)).toEqual([U1]);
	});
});

describe('many batches', () => {
	it('stops polling a batch that finished early and keeps following the others', async () => {
		const early = await sendDirect(sb.baseUrl, [D1, NUMBER.delivered(2)]);
		const late = await sendDirect(sb.baseUrl, [N1]);
		const watcher = new Watcher(sb.baseUrl, { batchIds: `${early}, ${late}`, emit: 'final' });
		await watcher.emitted();
		sb.advance(FINAL_AFTER_MS);
		expect(changes(await watcher.emitted())).toEqual([
			`${D1} ENROUTE>DELIVRD`,
			`${NUMBER.delivered(2)} ENROUTE>DELIVRD`,
		]);

		// The early batch is read once more to confirm it is finished, then never again.
		let before = statusRequests().length;
		expect(await watcher.emitted()).toEqual([]);
		expect(statusRequests().slice(before).sort()).toEqual([early, late].sort());
		before = statusRequests().length;
		expect(await watcher.emitted()).toEqual([]);
		expect(statusRequests().slice(before)).toEqual([late]);

		const [message] = sb.received().batches[1].messages;
		await sb.forceStatus(message.gateway_session_id, 'EXPIRED');
		const items = await watcher.emitted();
		expect(items.map((item) => [item.batch_id, item.msisdn, item.status])).toEqual([
			[late, N1, 'EXPIRED'],
		]);

		// Both finished (after one confirming read): a poll makes no request at all.
		expect(await watcher.emitted()).toEqual([]);
		const afterAll = statusRequests().length;
		expect(await watcher.emitted()).toEqual([]);
		expect(statusRequests()).toHaveLength(afterAll);
		expect(watcher.state).toEqual({ v: 2, g: expect.any(Number), b: {}, f: [early, late] });
	});

	it('watches ids given by an expression as a list, and drops the state of ids no longer watched', async () => {
		const first = await sendDirect(sb.baseUrl, [N1]);
		const second = await sendDirect(sb.baseUrl, [NUMBER.neverFinal(2)]);
		const watcher = new Watcher(sb.baseUrl, { batchIds: `={{ ["${first}", "${second}"] }}` });
		await watcher.emitted();
		expect(Object.keys((watcher.state as IDataObject).b as IDataObject).sort()).toEqual(
			[first, second].sort(),
		);
		watcher.parameters = { batchIds: second };
		await watcher.emitted();
		expect(Object.keys((watcher.state as IDataObject).b as IDataObject)).toEqual([second]);
	});

	it('reads the XML answer the same way', async () => {
		const batchId = await sendDirect(sb.baseUrl, [D1, N1]);
		const watcher = new Watcher(sb.baseUrl, { batchIds: batchId, format: 'xml' });
		await watcher.emitted();
		sb.advance(FINAL_AFTER_MS);
		const [item] = await watcher.emitted();
		expect(item).toMatchObject({
			batch_id: batchId,
			msisdn: D1,
			status: 'DELIVRD',
			delivery_date: '2026-11-20T10:00:05.000+00:00',
		});
	});
});

describe('errors name the batch', () => {
	it('an unknown batch id is named at once, and the other batches are followed as before', async () => {
		const known = await sendDirect(sb.baseUrl, [N1]);
		const watcher = new Watcher(sb.baseUrl, { batchIds: known });
		await watcher.emitted();
		const before = JSON.stringify((watcher.state as IDataObject).b);
		watcher.parameters = { batchIds: `${known}\n4242424242424242424` };
		const outcome = await watcher.poll();
		expect(outcome.error?.message).toMatch(/does not know batch 4242424242424242424/);
		expect(JSON.stringify((watcher.state as IDataObject).b)).toBe(before);
		expect((watcher.state as IDataObject).e).toEqual({ '4242424242424242424': 1 });
		// Not named again on the next poll (3, 6, 12… polls in a row are), and nothing is lost:
		// the known batch's change is emitted.
		await sb.forceStatus(sb.received().batches[0].messages[0].gateway_session_id, 'DELIVRD');
		const next = await watcher.poll();
		expect(next.error).toBeUndefined();
		expect(changes(next.result?.[0].map((item) => item.json) ?? [])).toEqual([
			`${N1} ENROUTE>DELIVRD`,
		]);
	});

	// Through n8n-core's PollTriggerExecutor, as n8n activates: the error fails the activation.
	it.each<[string, string, string, boolean]>([
		['an unknown batch id', '4242424242424242424', 'does not know batch 4242424242424242424', true],
		[
			'an id that is not digits',
			'123, abc',
			'Cannot watch batch: "abc" is not a batch ID: it must be digits only',
			false,
		],
		['no id at all', ' , ', 'No batch ID to watch', false],
	])(
		'activation with %s fails with a clear error, stores nothing, and is run again',
		async (_, batchIds, message, asked) => {
			const watcher = new Watcher(sb.baseUrl, { batchIds });
			await expect(watcher.poll()).rejects.toThrow(message);
			expect(statusRequests()).toEqual(asked ? [batchIds] : []);
			// A failed activation saves nothing (what it counted in memory is dropped by n8n).
			expect(watcher.persisted).toEqual({});

			watcher.parameters = { batchIds: await sendDirect(sb.baseUrl, [N1]) };
			expect(await watcher.emitted()).toEqual([]);
			// Saved although nothing was emitted: only the activation poll does that.
			expect(watcher.persisted).toEqual(watcher.staticData);
			expect(watcher.state).toBeDefined();
		},
	);
});

describe('equivalent batch ids', () => {
	it('"0123" and "123" are one batch: one request per poll, one item per change', async () => {
		const batchId = await sendDirect(sb.baseUrl, [D1, N1]);
		const watcher = new Watcher(sb.baseUrl, {
			batchIds: `0${batchId}, ${batchId}\n00${batchId}`,
			emit: 'final',
		});
		expect(await watcher.emitted()).toEqual([]);
		sb.advance(FINAL_AFTER_MS);
		expect(changes(await watcher.emitted())).toEqual([`${D1} ENROUTE>DELIVRD`]);
		// Asked for and remembered in the service's own form, not as first typed.
		expect(statusRequests()).toEqual([batchId, batchId]);
		expect(Object.keys((watcher.state as IDataObject).b as IDataObject)).toEqual([batchId]);
	});
});

describe('reports in a new order', () => {
	const BATCH = '9007199254740993';
	const [A, B, C] = ['447700900100', '447700900110', '447700900130'];

	/** A get_status answer: "msisdn:STATUS" entries in this order. */
	function answer(entries: string): string {
		const reports = entries.split(' ').map((entry) => {
			const [msisdn, status] = entry.split(':');
			const date = status === 'ENROUTE' ? '' : '2026-11-20 10:00:05.0';
			return `{"batch_id":${BATCH},"network_id":23410,"status":"${status}","msisdn":"${msisdn}","gateway_session_id":1,"delivery_date":"${date}"}`;
		});
		return `{"reports":[${reports.join(',')}]}`;
	}

	// With the first state version, this lost A (and logged a "new order" warning).
	it('emits a report it has not seen yet when it appears, final, in a new order, without a warning', async () => {
		proxy = await new Proxy(sb.baseUrl).start();
		let body = answer(`${B}:DELIVRD ${C}:ENROUTE`);
		proxy.breakFor = () => ({ status: 200, body });
		const warn = jest.fn();
		const logger = { debug: () => {}, info: () => {}, error: () => {}, warn };
		jest
			.spyOn(PollContext.prototype, 'logger', 'get')
			.mockReturnValue(logger as unknown as PollContext['logger']);
		const watcher = new Watcher(proxy.baseUrl, { batchIds: BATCH, emit: 'final' });
		expect(await watcher.emitted()).toEqual([]);

		body = answer(`${A}:DELIVRD ${B}:DELIVRD ${C}:ENROUTE`);
		expect(changes(await watcher.emitted())).toEqual([`${A} ->DELIVRD`]);
		body = answer(`${C}:ENROUTE ${B}:DELIVRD`);
		expect(await watcher.emitted()).toEqual([]);
		body = answer(`${C}:DELIVRD ${A}:DELIVRD ${B}:DELIVRD`);
		expect(changes(await watcher.emitted())).toEqual([`${C} ENROUTE>DELIVRD`]);
		expect(warn).not.toHaveBeenCalled();
	});
});

describe('the editor', () => {
	it('says why "Fetch Test Event" is not available while Batch IDs is empty, and shows ids like real ones', () => {
		const notice = triggerProperties.find((property) => property.type === 'notice');
		expect(notice?.displayName).toMatch(/batch_id of a Send first.*Fetch Test Event/);
		expect(notice?.displayOptions).toEqual({ show: { batchIds: [''] } });
		const batchIds = triggerProperties.find((property) => property.name === 'batchIds');
		for (const id of String(batchIds?.placeholder).match(/\d+/g) ?? [])
			expect(readBatchId(id)).toEqual({ batchId: id });
		expect(batchIds?.placeholder).toMatch(/\d{16,19}/);
	});
});

describe('manual mode ("Fetch test event")', () => {
	it('returns current reports of every watched batch and changes no state', async () => {
		const first = await sendDirect(sb.baseUrl, [D1, N1]);
		const second = await sendDirect(sb.baseUrl, [U1]);
		const watcher = new Watcher(sb.baseUrl, { batchIds: `${first} ${second}`, emit: 'changes' });
		await watcher.emitted();
		sb.advance(FINAL_AFTER_MS);
		const saved = JSON.stringify(watcher.persisted);
		const memory = JSON.stringify(watcher.staticData);

		const outcome = await watcher.fetchTestEvent();
		const items = outcome.result?.[0].map((item) => item.json) ?? [];
		expect(items.map((item) => `${String(item.batch_id)} ${String(item.msisdn)}`)).toEqual([
			`${first} ${D1}`,
			`${first} ${N1}`,
			`${second} ${U1}`,
		]);
		expect(changes(items)).toEqual([`${D1} ->DELIVRD`, `${U1} ->UNDELIV`, `${N1} ->ENROUTE`]);
		expect(JSON.stringify(outcome.staticData)).toBe(saved); // the manual run's own copy: untouched
		expect(JSON.stringify(watcher.persisted)).toBe(saved);
		expect(JSON.stringify(watcher.staticData)).toBe(memory);

		// The active trigger still emits the change, as if the test event never happened.
		expect(changes(await watcher.emitted())).toEqual([
			`${D1} ENROUTE>DELIVRD`,
			`${U1} ENROUTE>UNDELIV`,
		]);
	});

	it('is bounded: a few reports of each batch, and the first 20 batches', async () => {
		const big = await sendDirect(
			sb.baseUrl,
			Array.from({ length: 8 }, (_, i) => NUMBER.delivered(100 + i)),
		);
		const small: string[] = [];
		for (let i = 0; i < 21; i++) small.push(await sendDirect(sb.baseUrl, [NUMBER.delivered(i)]));
		const watcher = new Watcher(sb.baseUrl, {
			batchIds: [big, ...small].join(','),
			emit: 'changes',
		});
		const items = (await watcher.fetchTestEvent()).result?.[0].map((item) => item.json) ?? [];
		const perBatch = new Map<unknown, number>();
		for (const item of items) perBatch.set(item.batch_id, (perBatch.get(item.batch_id) ?? 0) + 1);
		expect([...perBatch.keys()]).toEqual([big, ...small.slice(0, 19)]);
		expect(perBatch.get(big)).toBe(5);
		expect(statusRequests()).toHaveLength(20);
	});

	it('shows what the mode emits: only final reports under Final Statuses Only, when there are some', async () => {
		const batchId = await sendDirect(sb.baseUrl, [D1, N1]);
		sb.advance(FINAL_AFTER_MS);
		const outcome = await new Watcher(sb.baseUrl, {
			batchIds: batchId,
			emit: 'final',
		}).fetchTestEvent();
		expect(changes(outcome.result?.[0].map((item) => item.json) ?? [])).toEqual([
			`${D1} ->DELIVRD`,
		]);
	});

	it('reads the credential once, for the settings and the request alike', async () => {
		const batchId = await sendDirect(sb.baseUrl, [D1]);
		const reads = jest.spyOn(HarnessCredentialsHelper.prototype, 'getDecrypted');
		const outcome = await new Watcher(sb.baseUrl, { batchIds: batchId }).fetchTestEvent();
		expect(outcome.result?.[0]).toHaveLength(1);
		expect(reads.mock.calls).toHaveLength(1);
	});

	it('with Batch Finished, the sample is the summary of each batch', async () => {
		const batchId = await sendDirect(sb.baseUrl, [D1, N1]);
		const other = await sendDirect(sb.baseUrl, [U1]);
		const outcome = await new Watcher(sb.baseUrl, {
			batchIds: `${batchId},${other}`,
			emit: 'batchFinal',
		}).fetchTestEvent();
		expect(outcome.result?.[0].map((item) => item.json)).toEqual([
			{
				batch_id: batchId,
				total: 2,
				by_status: { ENROUTE: 2 },
				by_outcome: { delivered: 0, failed: 0, pending: 2 },
				all_final: false,
			},
			{
				batch_id: other,
				total: 1,
				by_status: { ENROUTE: 1 },
				by_outcome: { delivered: 0, failed: 0, pending: 1 },
				all_final: false,
			},
		]);
	});

	it('names a batch that cannot be read', async () => {
		const batchId = await sendDirect(sb.baseUrl, [D1]);
		const watcher = new Watcher(sb.baseUrl, { batchIds: `${batchId}, 4242424242424242424` });
		await expect(watcher.fetchTestEvent()).rejects.toThrow(
			/does not know batch 4242424242424242424/,
		);
	});
});
