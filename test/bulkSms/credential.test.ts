/** The credential's test, run the way n8n's credential tester runs it, against the sandbox. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { testCredential } from '../engine/harness';
import { startSandbox, type Sandbox } from '../../sandbox/server';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => {
	await sandbox.stop();
});

const data = (overrides: Record<string, string> = {}) => ({
	baseUrl: `${sandbox.baseUrl}/`,
	username: 'demo',
	password: 'demo-password',
	timeZone: 'UTC',
	...overrides,
});

describe('Bulk SMS credential test', () => {
	it('succeeds with the right account, and sends nothing', async () => {
		await expect(testCredential('bulkSmsApi', data())).resolves.toMatchObject({ status: 'OK' });
		expect(sandbox.received().batches).toHaveLength(0);
		expect(sandbox.accounts()).toEqual([{ username: 'demo', credits: 1000 }]);
	});

	it('says the username or password is wrong on 401', async () => {
		await expect(testCredential('bulkSmsApi', data({ password: 'wrong' }))).resolves.toEqual({
			status: 'Error',
			message: 'Invalid username or password',
		});
	});

	it('fails when nothing listens at the address', async () => {
		const closed = await freePort();
		const result = await testCredential(
			'bulkSmsApi',
			data({ baseUrl: `http://127.0.0.1:${closed}` }),
		);
		expect(result).toEqual({
			status: 'Error',
			message: expect.stringMatching(/ECONNREFUSED|refused/),
		});
	});
});

/** A port that was free a moment ago: listen, note it, close. */
async function freePort(): Promise<number> {
	const server: Server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return port;
}
