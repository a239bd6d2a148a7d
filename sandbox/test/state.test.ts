/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/** --state-file: accounts, credits, batches and the clock survive a restart; writes are atomic. */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { startSandbox } from '../server';
import { getStatus, parseJsonLossless, parseXml, rawNumbers, send, sendOk } from './helpers';

const T0 = Date.UTC(2026, 0, 15, 10, 0, 0, 0);
let dir: string;
let stateFile: string;
beforeEach(() => {
	dir = mkdtempSync(path.join(tmpdir(), 'sandbox-state-'));
	stateFile = path.join(dir, 'state.json');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('keeps accounts, credits, batches, reports and the id sequence across a restart', async () => {
	const first = await startSandbox({ stateFile, timeScale: 0, startTime: T0 });
	const batch = await sendOk(first, { destination: '447700900001,447700900009', message: 'x' });
	first.advance(5000);
	const before = (await getStatus(first, batch)).text;
	await first.stop();

	// A later start time cannot move the clock back: the clock resumes where it stopped.
	const second = await startSandbox({ stateFile, timeScale: 0, startTime: T0 });
	try {
		expect(second.now()).toBe(T0 + 5000);
		expect(second.accounts()).toEqual([{ username: 'demo', credits: 998 }]);
		expect((await getStatus(second, batch)).text).toBe(before);
		const next = rawNumbers(
			(await send(second, { destination: '447700900001', message: 'x' })).text,
			'batch_id',
		)[0];
		expect(BigInt(next)).toBe(BigInt(batch) + 2n);
		expect(second.received().destinations.find((d) => d.msisdn === '447700900001')?.accepted).toBe(
			2,
		);
	} finally {
		await second.stop();
	}
});

it('the state file wins for accounts it knows; new accounts from the options are added', async () => {
	const first = await startSandbox({ stateFile });
	await sendOk(first, { destination: '447700900001', message: 'x' });
	await first.upsertAccount({ username: 'made-at-runtime', password: 'pw', credits: 7 });
	await first.stop();
	const second = await startSandbox({
		stateFile,
		accounts: [
			{ username: 'demo', password: 'demo-password', credits: 1000 },
			{ username: 'new', password: 'pw', credits: 5 },
		],
	});
	try {
		expect(second.accounts()).toEqual([
			{ username: 'demo', credits: 999 },
			{ username: 'new', credits: 5 },
			{ username: 'made-at-runtime', credits: 7 },
		]);
		const res = await send(
			second,
			{ destination: '447700900001', message: 'x' },
			{ auth: { username: 'made-at-runtime', password: 'pw' } },
		);
		expect(parseJsonLossless(res.text).remaining_credits).toBe(6);
	} finally {
		await second.stop();
	}
});

it('is written before the send is answered, whole every time, with no temporary file left', async () => {
	const sb = await startSandbox({ stateFile });
	try {
		const reads: string[] = [];
		const sends = Array.from({ length: 25 }, () =>
			send(sb, { destination: '447700900001', message: 'x' }),
		);
		for (let i = 0; i < 25; i++) {
			reads.push(readFileSync(stateFile, 'utf8'));
			await new Promise((r) => setImmediate(r));
		}
		await Promise.all(sends);
		for (const text of reads) expect(() => JSON.parse(text)).not.toThrow();
		// Once a send is answered, the file already holds it.
		const saved = JSON.parse(readFileSync(stateFile, 'utf8'));
		expect(saved.batches).toHaveLength(25);
		expect(saved.accounts[0].credits).toBe(975);
		expect(readdirSync(dir)).toEqual(['state.json']);
	} finally {
		await sb.stop();
	}
});

it('a state file that is not the sandbox’s stops the start with a clear error', async () => {
	writeFileSync(stateFile, JSON.stringify({ version: 99 }));
	await expect(startSandbox({ stateFile })).rejects.toThrow(/unknown state file version 99/);
	writeFileSync(stateFile, '{"version":1,');
	await expect(startSandbox({ stateFile })).rejects.toThrow(/JSON/);
});

it('ids are stored as strings of digits, never as JSON numbers', async () => {
	const sb = await startSandbox({ stateFile });
	const batch = await sendOk(sb, { destination: '447700900001', message: 'x' });
	await sb.stop();
	const text = readFileSync(stateFile, 'utf8');
	expect(text).toContain(`"batchId": "${batch}"`);
	expect(text).not.toMatch(/:\s*\d{16,}/);
});

it('a send whose state cannot be written is answered 500 and undone: no charge, no batch', async () => {
	const folder = path.join(dir, 'folder');
	mkdirSync(folder);
	const sb = await startSandbox({ stateFile: path.join(folder, 'state.json') });
	const hi = { destination: '447700900001', message: 'x' };
	try {
		const kept = await sendOk(sb, hi);
		// A file where the folder was: the write fails even for root, whom permissions do not stop.
		rmSync(folder, { recursive: true });
		writeFileSync(folder, 'not a folder');
		const json = await send(sb, hi);
		const xml = await send(sb, hi, { accept: 'application/xml' });
		expect([json.status, xml.status]).toEqual([500, 500]);
		expect(parseJsonLossless(json.text).error).toMatch(/state file could not be written/);
		expect(parseXml(xml.text).error).toMatch(/batch was not taken/);
		expect(sb.accounts()).toEqual([{ username: 'demo', credits: 999 }]);
		expect(sb.received().batches.map((b) => b.batch_id)).toEqual([kept]);
		// The id the undone send took names no batch.
		expect((await getStatus(sb, String(BigInt(kept) + 2n))).status).toBe(404);
	} finally {
		rmSync(folder, { force: true });
		mkdirSync(folder);
		await sb.stop();
	}
	const saved = JSON.parse(readFileSync(path.join(folder, 'state.json'), 'utf8'));
	expect([saved.batches.length, saved.accounts[0].credits]).toEqual([1, 999]);
});
