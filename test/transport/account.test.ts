/**
 * n8n reads and decrypts a credential from its database on every read: a run reads it once per
 * item for its settings and all that item's requests (a trigger's poll once for all its
 * batches), and again at the next run or poll, so that a changed credential is seen.
 */
import { HarnessCredentialsHelper } from '../engine/credentials';
import { outputOf, runWorkflow } from '../engine/harness';
import { credentialsFor, getStatus, items, line, send, trigger } from '../bulkSms/workflow';
import { frozenSandbox, NUMBER, Watcher } from '../trigger/helpers';
import { sendDirect } from '../../sandbox/client';
import type { Sandbox } from '../../sandbox/server';

let sandbox: Sandbox;
let reads: jest.SpyInstance;
beforeEach(async () => {
	sandbox = await frozenSandbox();
	reads = jest.spyOn(HarnessCredentialsHelper.prototype, 'getDecrypted');
});
afterEach(async () => {
	reads.mockRestore();
	await sandbox.stop();
});

const numbers = (count: number) => Array.from({ length: count }, (_, n) => NUMBER.delivered(n + 1));

it('reads the credential once per poll, however many batches it checks', async () => {
	const batchIds: string[] = [];
	for (let n = 1; n <= 12; n++)
		batchIds.push(await sendDirect(sandbox.baseUrl, [NUMBER.neverFinal(n)]));
	const watcher = new Watcher(sandbox.baseUrl, { batchIds: batchIds.join(',') });
	reads.mockClear();
	await watcher.poll();
	const first = reads.mock.calls.length;
	await watcher.poll();
	expect(sandbox.requests().filter((request) => request.method === 'GET')).toHaveLength(24);
	expect([first, reads.mock.calls.length - first]).toEqual([1, 1]);
});

it('reads it once per item, for the settings and all the requests of the item: Send', async () => {
	const node = send({
		destinations: numbers(10).join(','),
		message: 'Hi',
		sendOptions: { maxPerRequest: 1 },
	});
	const run = await runWorkflow({ ...line(trigger(), node), credentials: credentialsFor(sandbox) });
	expect(outputOf(run, node.name)).toHaveLength(10);
	expect(reads.mock.calls).toHaveLength(1);
});

it('reads it once per item, for the settings and all the batches of the item: Get Status', async () => {
	const batchIds: string[] = [];
	for (const number of numbers(6)) batchIds.push(await sendDirect(sandbox.baseUrl, [number]));
	reads.mockClear();
	const node = getStatus({ batchId: batchIds.join(','), output: 'batch' });
	const run = await runWorkflow({
		...line(trigger(), items([{}]), node),
		credentials: credentialsFor(sandbox),
	});
	expect(outputOf(run, node.name)).toHaveLength(6);
	expect(reads.mock.calls).toHaveLength(1);
});
