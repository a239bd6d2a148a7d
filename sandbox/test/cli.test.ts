/* eslint-disable
	@n8n/community-nodes/no-dangerous-functions,
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/** `npm run sandbox`: flags and variables, the banner, and a clean stop on Ctrl-C. */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { banner } from '../cli';
import { parseCli, parseDuration } from '../flags';
import { DEFAULT_NETWORKS } from '../numbers';
import { startSandbox } from '../server';
import {
	call,
	getStatus,
	jsonReports,
	parseJsonLossless,
	parseReceived,
	rawNumbers,
	send,
	sendOk,
	CLI_START_MS,
	startCli,
	until,
	type Call,
	type CliProcess,
} from './helpers';

const hi = { destination: '447700900001', message: 'hi' };

function tempDir(): string {
	return mkdtempSync(path.join(tmpdir(), 'sandbox-cli-'));
}

describe('parseCli', () => {
	it('defaults to 127.0.0.1:8555, the demo account, real time, UTC, no faults', () => {
		const { options, quiet } = parseCli([], {});
		expect(options).toMatchObject({
			host: '127.0.0.1',
			port: 8555,
			accounts: [{ username: 'demo', password: 'demo-password', credits: 1000 }],
			timeScale: 1,
			finalAfterMs: 5000,
			timeZone: 'UTC',
			faults: {},
			admin: true,
			stateFile: undefined,
		});
		expect(options.networks).toEqual(DEFAULT_NETWORKS);
		expect(quiet).toBe(false);
	});

	it('reads every flag', () => {
		const { options, quiet } = parseCli(
			[
				'--host',
				'0.0.0.0',
				'--port',
				'0',
				'--account',
				'a:p:1',
				'--account',
				'b:x:y:2',
				'--time-scale',
				'60',
				'--final-after',
				'2s',
				'--time-zone',
				'Europe/Paris',
				'--network',
				'44:999:1h',
				'--network',
				'352:27001:2d',
				'--state-file',
				'/tmp/s.json',
				'--latency',
				'250ms',
				'--error-503-rate',
				'0.02',
				'--error-500-rate',
				'0.1',
				'--error-429-rate',
				'0.2',
				'--retry-after',
				'3',
				'--drop-before-rate',
				'0.05',
				'--drop-after-rate',
				'0.01',
				'--rate-limit',
				'10/1s',
				'--fault-seed',
				'7',
				'--no-admin',
				'--quiet',
			],
			{},
		);
		expect(options).toMatchObject({
			host: '0.0.0.0',
			port: 0,
			accounts: [
				{ username: 'a', password: 'p', credits: 1 },
				{ username: 'b', password: 'x:y', credits: 2 },
			],
			timeScale: 60,
			finalAfterMs: 2000,
			timeZone: 'Europe/Paris',
			stateFile: '/tmp/s.json',
			admin: false,
			faults: {
				latencyMs: 250,
				error500Rate: 0.1,
				error503Rate: 0.02,
				error429Rate: 0.2,
				retryAfterSeconds: 3,
				dropBeforeRate: 0.05,
				dropAfterRate: 0.01,
				rateLimit: { limit: 10, windowMs: 1000 },
				seed: 7,
			},
		});
		expect(options.networks).toContainEqual({
			prefix: '44',
			networkId: 999,
			maxValidityMs: 3600_000,
		});
		expect(options.networks).toContainEqual({
			prefix: '352',
			networkId: 27001,
			maxValidityMs: 2 * 86_400_000,
		});
		expect(options.networks.filter((n) => n.prefix === '44')).toHaveLength(1);
		expect(quiet).toBe(true);
	});

	it('reads environment variables; a flag wins over its variable', () => {
		const env = {
			SANDBOX_PORT: '9000',
			SANDBOX_ACCOUNTS: 'a:p:1, b:q:2',
			SANDBOX_TIME_SCALE: '10',
			SANDBOX_ERROR_429_RATE: '0.5',
			SANDBOX_RATE_LIMIT: '5/1m',
			SANDBOX_ADMIN: 'false',
			SANDBOX_QUIET: 'true',
			SANDBOX_STATE_FILE: 'state.json',
		};
		const { options, quiet } = parseCli(['--port', '9001'], env);
		expect(options.port).toBe(9001);
		expect(options.accounts.map((a) => a.username)).toEqual(['a', 'b']);
		expect(options.timeScale).toBe(10);
		expect(options.faults).toEqual({
			error429Rate: 0.5,
			rateLimit: { limit: 5, windowMs: 60_000 },
		});
		expect([options.admin, quiet, options.stateFile]).toEqual([false, true, 'state.json']);
	});

	it.each([
		['--credits alone: the demo account', ['--credits', '5'], {}, [['demo', 'demo-password', 5]]],
		[
			'--credits: accounts given without credits; their own win',
			['--account', 'a:p', '--account', 'b:x:y:2', '--credits', '5'],
			{},
			[
				['a', 'p', 5],
				['b', 'x:y', 2],
			],
		],
		['USER:PASS without --credits: 1000', ['--account', 'a:p'], {}, [['a', 'p', 1000]]],
		[
			'SANDBOX_CREDITS with SANDBOX_ACCOUNTS',
			[],
			{ SANDBOX_ACCOUNTS: 'a:p, b:q:2', SANDBOX_CREDITS: '7' },
			[
				['a', 'p', 7],
				['b', 'q', 2],
			],
		],
		[
			'SANDBOX_CREDITS alone: the demo account',
			[],
			{ SANDBOX_CREDITS: '7' },
			[['demo', 'demo-password', 7]],
		],
	])('%s', (_name, argv, env, accounts) => {
		const got = parseCli(argv, env).options.accounts;
		expect(got.map((a) => [a.username, a.password, a.credits])).toEqual(accounts);
	});

	it.each([
		[['--first-batch-id', '9223372036854775807'], {}, '9223372036854775807'],
		[[], { SANDBOX_FIRST_BATCH_ID: '1234567890123456789' }, '1234567890123456789'],
		[[], {}, undefined],
	])('first batch id %j %j is kept as digits', (argv, env, id) => {
		expect(parseCli(argv, env).options.firstBatchId).toBe(id);
	});

	it.each([
		[['--mislabel', '--answer-format', 'xml'], {}, { mislabel: true, answerFormat: 'xml' }],
		[
			[],
			{ SANDBOX_MISLABEL: 'true', SANDBOX_ANSWER_FORMAT: 'json' },
			{ mislabel: true, answerFormat: 'json' },
		],
		[[], { SANDBOX_MISLABEL: 'false' }, {}],
	])('labels %j %j', (argv, env, faults) => {
		expect(parseCli(argv, env).options.faults).toEqual(faults);
	});

	it('SANDBOX_NETWORKS adds and replaces networks', () => {
		const { networks } = parseCli([], { SANDBOX_NETWORKS: '44:999:1h, 352:27001:2d' }).options;
		expect(networks).toContainEqual({ prefix: '44', networkId: 999, maxValidityMs: 3600_000 });
		expect(networks).toContainEqual({
			prefix: '352',
			networkId: 27001,
			maxValidityMs: 172_800_000,
		});
		expect(networks.filter((n) => n.prefix === '44')).toHaveLength(1);
	});

	it.each([
		[['--port', 'x']],
		[['--port', '70000']],
		[['--account', 'nocredits']],
		[['--account', 'a:b:1.5']],
		[['--error-500-rate', '2']],
		[['--final-after', 'soon']],
		[['--network', '44:abc:1d']],
		[['--rate-limit', '10']],
		[['--unknown-flag']],
		[['--account', ':p:1']],
		[['--credits', '1.5']],
		[['--first-batch-id', '12345678901234567890']],
		[['--first-batch-id', '1e3']],
		[['--first-batch-id', '0']],
		[['--answer-format', 'html']],
	])('rejects %j', (argv) => {
		expect(() => parseCli(argv, {})).toThrow();
	});

	it.each([
		['250', 250],
		['250ms', 250],
		['5s', 5000],
		['1.5s', 1500],
		['2m', 120_000],
		['1h', 3600_000],
		['7d', 604_800_000],
	])('duration %s = %i ms', (text, ms) => expect(parseDuration(text)).toBe(ms));
});

it('npm run sandbox starts, prints the base URL and demo account, serves, and stops on Ctrl-C', async () => {
	const root = path.resolve(__dirname, '../..');
	// Its own process group, so Ctrl-C can be imitated the way a terminal sends it: to the group.
	const child = spawn(
		'npm',
		['run', '--silent', 'sandbox', '--', '--port', '0', '--credits', '42'],
		{
			cwd: root,
			detached: true,
			stdio: ['ignore', 'pipe', 'pipe'],
		},
	);
	let out = '';
	child.stdout.on('data', (d: Buffer) => (out += d.toString()));
	// 'close' waits until every process of the group has let go of stdout: the sandbox too, not only npm.
	const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
	try {
		for (let i = 0; i < 300 && !/Press Ctrl-C/.test(out); i++)
			await new Promise((r) => setTimeout(r, 50));
		const baseUrl = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
		expect(baseUrl).toBeDefined();
		expect(out).toMatch(/Username {2}demo {3}Password {2}demo-password {3}\(42 credits\)/);
		const res = await fetch(`${baseUrl}/api/sms/send`, {
			method: 'POST',
			headers: {
				Authorization: `Basic ${Buffer.from('demo:demo-password').toString('base64')}`,
				'Content-Type': 'application/x-www-form-urlencoded',
			},
			body: 'destination=447700900001&message=hi',
		});
		expect(await res.text()).toMatch(/"remaining_credits":41/);
	} finally {
		process.kill(-child.pid!, 'SIGINT');
	}
	await closed;
	expect(out).toMatch(/SIGINT: stopping the sandbox\nSandbox stopped\./);
	expect(out).toMatch(/POST \/api\/sms\/send demo -> 200/);
}, 30_000);

it('the banner shows the password and credits the sandbox holds after its state file', async () => {
	const dir = tempDir();
	const stateFile = path.join(dir, 'state.json');
	try {
		const first = await startSandbox({ stateFile });
		await sendOk(first, hi);
		await first.upsertAccount({ username: 'demo', password: 'changed-at-runtime' });
		await first.stop();
		// Its options still say demo-password and 1000 credits; the state file says otherwise.
		const second = await startSandbox({ stateFile });
		const text = banner(second);
		await second.stop();
		expect(text).toContain('Username  demo   Password  changed-at-runtime   (999 credits)');
		expect(text).not.toContain('demo-password');
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});

describe('the CLI applies its fault flags and variables to the running server', () => {
	const outcome = (call: Promise<Call>) =>
		call.then(
			(r) => r.status,
			() => 'dropped',
		);
	const accepted = async (cli: CliProcess) =>
		parseReceived((await call(cli, '/_sandbox/batches')).text).destinations.length;
	const statuses = async (target: { baseUrl: string }) => {
		const out = [];
		for (let i = 0; i < 12; i++) out.push(await outcome(send(target, hi)));
		return out;
	};
	/** The draws of the CLI's seed match those of an in-process sandbox with that seed. */
	const seeded = async (cli: CliProcess) => {
		const local = await startSandbox({ faults: { error500Rate: 0.5, seed: 9 } });
		const [remote, same] = [await statuses(cli), await statuses(local)];
		await local.stop();
		return remote.join() === same.join() && remote.includes(500) && remote.includes(200);
	};
	/** Credits left, network_id, and how long the network keeps a far validity_period. */
	const network = async (cli: CliProcess) => {
		const fields = { ...hi, validity_period: '991231235959' };
		const sent = parseJsonLossless((await send(cli, fields)).text);
		const [report] = jsonReports((await getStatus(cli, String(sent.batch_id))).text);
		const [batch] = parseReceived((await call(cli, '/_sandbox/batches')).text).batches;
		const kept = Date.parse(batch.messages[0].valid_until) - Date.parse(batch.submitted_at);
		return [sent.remaining_credits, report.network_id, kept];
	};
	const rows: Array<
		[string, string[], Record<string, string>, (c: CliProcess) => Promise<unknown>, unknown]
	> = [
		[
			'--error-503-rate 1 --retry-after 4',
			['--error-503-rate', '1', '--retry-after', '4'],
			{},
			async (c) => {
				const res = await send(c, hi);
				return [res.status, res.headers.get('retry-after')];
			},
			[503, '4'],
		],
		['--error-500-rate 1', ['--error-500-rate', '1'], {}, (c) => outcome(send(c, hi)), 500],
		['--error-429-rate 1', ['--error-429-rate', '1'], {}, (c) => outcome(send(c, hi)), 429],
		[
			'SANDBOX_ERROR_503_RATE=1',
			[],
			{ SANDBOX_ERROR_503_RATE: '1' },
			(c) => outcome(send(c, hi)),
			503,
		],
		[
			'--drop-before-rate 1',
			['--drop-before-rate', '1'],
			{},
			async (c) => [await outcome(send(c, hi)), await accepted(c)],
			['dropped', 0],
		],
		[
			'--drop-after-rate 1',
			['--drop-after-rate', '1'],
			{},
			async (c) => [await outcome(send(c, hi)), await accepted(c)],
			['dropped', 1],
		],
		[
			'--rate-limit 1/1m',
			['--rate-limit', '1/1m'],
			{},
			async (c) => [await outcome(send(c, hi)), await outcome(send(c, hi))],
			[200, 429],
		],
		[
			'--latency 300ms',
			['--latency', '300ms'],
			{},
			async (c) => {
				const started = Date.now();
				await send(c, hi);
				return Date.now() - started >= 290;
			},
			true,
		],
		[
			'--error-500-rate 0.5 --fault-seed 9',
			['--error-500-rate', '0.5', '--fault-seed', '9'],
			{},
			seeded,
			true,
		],
		[
			'--mislabel',
			['--mislabel'],
			{},
			async (c) => (await send(c, hi)).headers.get('content-type'),
			'text/plain; charset=utf-8',
		],
		[
			'--answer-format xml',
			['--answer-format', 'xml'],
			{},
			async (c) => (await send(c, hi)).text.slice(0, 5),
			'<?xml',
		],
		[
			'--first-batch-id',
			['--first-batch-id', '1234567890123456789'],
			{},
			async (c) => rawNumbers((await send(c, hi)).text, 'batch_id'),
			['1234567890123456789'],
		],
		[
			'SANDBOX_NETWORKS and SANDBOX_CREDITS',
			[],
			{ SANDBOX_NETWORKS: '44:999:1h', SANDBOX_CREDITS: '7' },
			network,
			[6, 999, 3600_000],
		],
	];
	it.concurrent.each(rows)(
		'%s',
		async (_name, argv, env, probe, expected) => {
			const cli = await startCli(argv, env);
			try {
				expect(await probe(cli)).toEqual(expected);
			} finally {
				await cli.stop();
			}
		},
		2 * CLI_START_MS,
	);
});

it(
	'after kill -9 of the CLI, a restart with its --state-file has everything answered before',
	async () => {
		const dir = tempDir();
		const stateFile = path.join(dir, 'state.json');
		const first = await startCli(['--state-file', stateFile]);
		let second: CliProcess | undefined;
		try {
			const password = 'set-before-the-kill';
			const put = { method: 'PUT', auth: null, body: JSON.stringify({ password }) };
			expect((await call(first, '/_sandbox/accounts/demo', put)).status).toBe(200);
			const auth = { username: 'demo', password };
			// Four clients keep sending, so the kill lands while writes are under way.
			const answered: string[] = [];
			const client = async () => {
				for (;;) answered.push(await sendOk(first, hi, { auth }));
			};
			const clients = Array.from({ length: 4 }, () => client().catch(() => undefined));
			await until(() => answered.length >= 20);
			await first.stop('SIGKILL');
			await Promise.all(clients);
			// Whole (it parses), and it holds every send that was answered.
			const saved = JSON.parse(readFileSync(stateFile, 'utf8'));
			const ids = saved.batches.map((b: { batchId: string }) => b.batchId);
			expect(answered.length).toBeGreaterThanOrEqual(20);
			expect(ids).toEqual(expect.arrayContaining(answered));
			second = await startCli(['--state-file', stateFile]);
			expect(second.output()).toContain(`Password  ${password}   (${1000 - ids.length} credits)`);
			for (const id of answered) expect((await getStatus(second, id, { auth })).status).toBe(200);
		} finally {
			await first.stop('SIGKILL');
			await second?.stop();
			rmSync(dir, { recursive: true, force: true });
		}
	},
	3 * CLI_START_MS,
);
