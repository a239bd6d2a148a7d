/**
 * n8n reads and decrypts a credential from its database on every read: a poll reads it once for
 * all the batches it checks, and again at the next poll (so a changed credential is seen).
 */
import { HarnessCredentialsHelper } from '../engine/credentials';
import { frozenSandbox, NUMBER, sendBatch, Watcher } from './helpers';

it('reads the credential once per poll, however many batches it checks', async () => {
	const sandbox = await frozenSandbox();
	try {
		const batchIds: string[] = [];
		for (let n = 1; n <= 12; n++)
			batchIds.push(await sendBatch(sandbox.baseUrl, [NUMBER.neverFinal(n)]));
		const watcher = new Watcher(sandbox.baseUrl, { batchIds: batchIds.join(',') });
		const reads = jest.spyOn(HarnessCredentialsHelper.prototype, 'getDecrypted');
		await watcher.poll();
		const first = reads.mock.calls.length;
		await watcher.poll();
		expect(sandbox.requests().filter((request) => request.method === 'GET')).toHaveLength(24);
		expect([first, reads.mock.calls.length - first]).toEqual([1, 1]);
		reads.mockRestore();
	} finally {
		await sandbox.stop();
	}
});
