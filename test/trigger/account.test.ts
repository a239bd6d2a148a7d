/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * An account's failure said at once: a failure that concerns every batch (refused
 * credentials, an address where nothing or something else answers) fails the activation poll
 * and every later poll, worded like the credential test, and emits nothing; one batch's failure
 * keeps its 3/6/12 reporting. Through n8n-core's PollContext against the sandbox on 127.0.0.1.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { sendDirect } from '../../sandbox/client';
import type { Sandbox } from '../../sandbox/server';
import { readState } from '../../nodes/shared/domain/watchState';
import { overrideTransportLimits } from '../../nodes/shared/transport';
import { changes, FINAL_AFTER_MS, frozenSandbox, NUMBER, Proxy, Watcher } from './helpers';

let sb: Sandbox;
let proxy: Proxy | undefined;
let restoreLimits: (() => void) | undefined;

beforeEach(async () => {
	sb = await frozenSandbox();
	restoreLimits = overrideTransportLimits({ firstRetryMs: 1 });
});

afterEach(async () => {
	restoreLimits?.();
	await proxy?.stop();
	proxy = undefined;
	await sb.stop();
});

const D1 = NUMBER.delivered(1);
const N1 = NUMBER.neverFinal(1);

/** The description every account failure ends with: nothing lost, nothing read meanwhile. */
const CONCERNS_EVERY_BATCH = /concerns every watched batch.*memory is unchanged/;

describe('a refused credential', () => {
	it('fails the activation poll at once, in the words of the credential test, storing nothing', async () => {
		const batchId = await sendDirect(sb.baseUrl, [D1]);
		await sb.upsertAccount({ username: 'demo', password: 'changed-elsewhere' });
		const watcher = new Watcher(sb.baseUrl, { batchIds: batchId });
		await expect(watcher.poll()).rejects.toThrow(
			'Wrong username or password: the service refused them (HTTP 401)',
		);
		expect(watcher.persisted).toEqual({});
	});

	it('fails every later poll at once, emits nothing, and loses nothing once corrected', async () => {
		const batchId = await sendDirect(sb.baseUrl, [D1, N1]);
		const watcher = new Watcher(sb.baseUrl, { batchIds: batchId });
		expect(await watcher.emitted()).toEqual([]);
		const memory = JSON.stringify(watcher.staticData);
		sb.advance(FINAL_AFTER_MS);
		await sb.upsertAccount({ username: 'demo', password: 'changed-elsewhere' });
		for (let poll = 0; poll < 2; poll++) {
			const failed = await watcher.poll();
			expect(failed.result).toBeNull();
			expect(failed.error?.message).toBe(
				'Wrong username or password: the service refused them (HTTP 401)',
			);
			expect((failed.error as { description?: string }).description).toMatch(CONCERNS_EVERY_BATCH);
			// Not a failure of the batch: nothing counted, nothing changed.
			expect(JSON.stringify(watcher.staticData)).toBe(memory);
		}
		await sb.upsertAccount({ username: 'demo', password: 'demo-password' });
		expect(changes(await watcher.emitted())).toEqual([`${D1} ENROUTE>DELIVRD`]);
		expect(await watcher.emitted()).toEqual([]);
	});

	it('a 403 is the account too, for every batch at once, and stops asking after the first', async () => {
		proxy = await new Proxy(sb.baseUrl).start();
		const ids: string[] = [];
		for (let i = 0; i < 20; i++) ids.push(await sendDirect(sb.baseUrl, [NUMBER.delivered(i)]));
		const watcher = new Watcher(proxy.baseUrl, { batchIds: ids.join(',') });
		expect(await watcher.emitted()).toEqual([]);
		proxy.breakFor = () => ({ status: 403, body: '{"error":"account suspended"}' });
		const asked = proxy.statusRequests.length;
		const failed = await watcher.poll();
		expect(failed.error?.message).toMatch(/^The service refused this account \(HTTP 403\)/);
		// The requests already on their way finish; no new one starts.
		expect(proxy.statusRequests.length - asked).toBeLessThanOrEqual(8);
		expect(readState(watcher.state).e).toBeUndefined();
	});
});

describe('a Base URL that is not the service', () => {
	let server: Server | undefined;
	afterEach(async () => {
		server?.closeAllConnections();
		await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
		server = undefined;
	});

	/** A web server that answers every request with this status and an HTML page. */
	async function website(status: number): Promise<string> {
		server = createServer((_req, res) => {
			res.writeHead(status, { 'Content-Type': 'text/html', Location: 'https://sms.example.net/' });
			res.end('<!DOCTYPE html><html><body><h1>Welcome</h1></body></html>');
		});
		await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
		return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	}

	it('a web page where the path should be (HTTP 404) is the address, not an unknown batch', async () => {
		const baseUrl = await website(404);
		const watcher = new Watcher(baseUrl, { batchIds: '9007199254740993' });
		await expect(watcher.poll()).rejects.toThrow(
			`Nothing answers at ${baseUrl}/api/sms/get_status (HTTP 404): the Base URL must be the Bulk SMS service address, without /api/sms`,
		);
	});

	it('a redirect is the address too, even for one batch (the interface never redirects)', async () => {
		const baseUrl = await website(301);
		const watcher = new Watcher(baseUrl, { batchIds: '9007199254740993' });
		const activation = watcher.poll();
		await expect(activation).rejects.toThrow(
			'The Base URL redirects to https://sms.example.net (HTTP 301): not followed',
		);
		await expect(activation).rejects.toMatchObject({
			description: expect.stringMatching(CONCERNS_EVERY_BATCH),
		});
	});

	it('a web page answered with 200 is not the service', async () => {
		const baseUrl = await website(200);
		const watcher = new Watcher(baseUrl, { batchIds: '9007199254740993' });
		await expect(watcher.poll()).rejects.toThrow(
			/^The Base URL does not answer like the Bulk SMS service: it is an HTML page/,
		);
	});

	it('nothing listening there (connection refused)', async () => {
		const baseUrl = await website(200);
		server?.close();
		server = undefined;
		const watcher = new Watcher(baseUrl, { batchIds: '9007199254740993' });
		const activation = watcher.poll();
		await expect(activation).rejects.toThrow('Cannot reach the Bulk SMS service');
		await expect(activation).rejects.toMatchObject({
			description: expect.stringMatching(/ECONNREFUSED.*concerns every watched batch/),
		});
	});
});

describe('every batch failing the same way', () => {
	it('is the account: the service knows none of the batches (HTTP 404 for each)', async () => {
		const watcher = new Watcher(sb.baseUrl, {
			batchIds: '4242424242424242421, 4242424242424242423',
		});
		await expect(watcher.poll()).rejects.toThrow(
			'The service knows none of the 2 batches asked for (HTTP 404)',
		);
	});

	it('an HTTP 500 for both of two batches is said at once; for one of them, on the third poll', async () => {
		proxy = await new Proxy(sb.baseUrl).start();
		const ids = [await sendDirect(sb.baseUrl, [N1]), await sendDirect(sb.baseUrl, [D1])];
		const watcher = new Watcher(proxy.baseUrl, { batchIds: ids.join(',') });
		await watcher.emitted();
		proxy.breakFor = () => ({ status: 500, body: '{"error":"boom"}' });
		const both = await watcher.poll();
		expect(both.error?.message).toBe(
			'All 2 batches asked for failed the same way: The service failed (HTTP 500)',
		);
		expect(readState(watcher.state).e).toBeUndefined();

		proxy.breakFor = (url) => (url.includes(ids[0]) ? { status: 500, body: '{}' } : undefined);
		expect((await watcher.poll()).error).toBeUndefined();
		expect((await watcher.poll()).error).toBeUndefined();
		expect((await watcher.poll()).error?.message).toBe(
			`Checking batch ${ids[0]} failed: The service failed (HTTP 500)`,
		);
	});

	it('one unknown batch of one is still the batch, named at once as before', async () => {
		const watcher = new Watcher(sb.baseUrl, { batchIds: '4242424242424242421' });
		await expect(watcher.poll()).rejects.toThrow(/does not know batch 4242424242424242421/);
	});
});

describe('Fetch Test Event', () => {
	it('says an account failure the same way', async () => {
		const batchId = await sendDirect(sb.baseUrl, [D1]);
		await sb.upsertAccount({ username: 'demo', password: 'changed-elsewhere' });
		const watcher = new Watcher(sb.baseUrl, { batchIds: batchId });
		await expect(watcher.fetchTestEvent()).rejects.toThrow(
			'Wrong username or password: the service refused them (HTTP 401)',
		);
	});
});
