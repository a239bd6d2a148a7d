/* eslint-disable
	@n8n/community-nodes/no-restricted-globals
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * The sandbox calls back the status trigger over HTTP (n8n's webhook path, test/engine/webhook.ts):
 * at least once delivery with repeats, reordering and a receiver that is down for a while, and
 * every status change of every message still starts the workflow exactly once.
 */

import { sendDirect } from '../../sandbox/client';
import { freePort } from '../../scripts/ports';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import type { WebhookServer } from '../engine/webhook';
import { SECRET, startTrigger, WEBHOOK_ID } from './helpers';

const T0 = Date.parse('2026-11-20T10:00:00Z');
let sb: Sandbox;
let server: WebhookServer | undefined;
afterEach(async () => {
	await sb?.stop();
	await server?.stop();
});

async function sandboxCalling(url: string, format: 'json' | 'xml' = 'json'): Promise<Sandbox> {
	const sandbox = await startSandbox({
		timeScale: 0,
		startTime: T0,
		callbacks: { retryBaseMs: 20, maxAttempts: 10, timeoutMs: 2000 },
	});
	await sandbox.upsertAccount({
		username: 'demo',
		credits: 10_000,
		callbackUrl: `${url}?token=${SECRET}`,
		callbackFormat: format,
	});
	return sandbox;
}

/** Each (gateway_session_id, status) the workflow was started with, counted. */
function changesSeen(receiver: WebhookServer): Map<string, number> {
	const seen = new Map<string, number>();
	for (const items of receiver.executions()) {
		for (const { json } of items) {
			const key = `${String(json.gateway_session_id)} ${String(json.status)}`;
			seen.set(key, (seen.get(key) ?? 0) + 1);
		}
	}
	return seen;
}

/** What the sandbox holds: every message's ENROUTE and its final status. */
function changesMade(sandbox: Sandbox): string[] {
	return sandbox
		.received()
		.batches.flatMap((b) => b.messages)
		.flatMap((m) => [`${m.gateway_session_id} ENROUTE`, `${m.gateway_session_id} ${m.status}`]);
}

const NUMBERS = Array.from({ length: 20 }, (_, i) => `4477009${String(i).padStart(5, '0')}`);

it.each<['json' | 'xml']>([['json'], ['xml']])(
	'%s callbacks with repeats and reordering: each final status starts the workflow once',
	async (format) => {
		server = await startTrigger({ parameters: { emit: 'changes' }, timeZone: 'UTC' });
		sb = await sandboxCalling(server.url, format);
		sb.setCallbacks({
			duplicateRate: 0.3,
			reorderRate: 0.3,
			seed: 11,
			retryBaseMs: 20,
			batchSize: 3,
		});
		// Last digits 0..9, 0, 1: every outcome.
		const batch = await sendDirect(sb.baseUrl, NUMBERS.slice(0, 12), { message: 'hi' });
		// Final statuses are queued behind the ENROUTEs, so reordering can put one before its ENROUTE.
		sb.advance(7 * 86_400_000); // every message final, expiring ones too (ends in 8)
		await sb.callbacksIdle();

		const { totals, callbacks } = sb.callbacks();
		expect(totals.duplicated).toBeGreaterThan(0); // the faults did happen
		expect(callbacks.some((c) => c.faults.includes('reorder'))).toBe(true);
		expect(totals.failed).toBe(0);
		const seen = changesSeen(server);
		const made = new Set(changesMade(sb));
		// Every change made was seen at most once; a final one exactly once. An ENROUTE that came
		// after its message's final status is acknowledged and left out (it is no news).
		expect([...seen.keys()].every((change) => made.has(change))).toBe(true);
		expect([...seen.values()].every((n) => n === 1)).toBe(true);
		const finals = [...made].filter((change) => !change.endsWith(' ENROUTE'));
		expect(finals.filter((change) => !seen.has(change))).toEqual([]);
		const ids = server
			.executions()
			.flat()
			.map((i) => i.json.batch_id);
		expect(new Set(ids)).toEqual(new Set([batch])); // 17 digits, exact
	},
);

it('a receiver that is down for a while gets every change once it is back', async () => {
	const port = await freePort();
	const url = `http://127.0.0.1:${port}/webhook/${WEBHOOK_ID}/status`;
	sb = await sandboxCalling(url);
	await sendDirect(sb.baseUrl, NUMBERS.slice(0, 3), { message: 'hi' });
	// Nothing listens yet: the ENROUTE callbacks are refused and wait for their next try.
	await waitFor(() => sb.callbacks().totals.retried >= 3);
	const staticData = {};
	server = await startTrigger({ parameters: { emit: 'changes' }, staticData, port });
	await sb.callbacksIdle();
	sb.advance(5000);
	await sb.callbacksIdle();
	const { totals } = sb.callbacks();
	expect(totals).toMatchObject({ failed: 0, pending: 0 });
	const seen = changesSeen(server);
	expect([...seen.keys()].sort()).toEqual([...new Set(changesMade(sb))].sort());
	expect([...seen.values()].every((n) => n === 1)).toBe(true);
});

/** Waits until done() holds; fails the test when it does not within ms. */
async function waitFor(done: () => boolean, ms = 10_000): Promise<void> {
	for (const end = Date.now() + ms; !done(); ) {
		if (Date.now() >= end) throw new Error(`not done within ${ms} ms`);
		await new Promise((r) => setTimeout(r, 10));
	}
}
