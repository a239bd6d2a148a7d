/** `npm run sandbox`: flags and variables, the banner, and a clean stop on Ctrl-C. */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { parseCli, parseDuration } from '../cli';
import { DEFAULT_NETWORKS } from '../numbers';

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

	it('--credits sets the demo account', () => {
		expect(parseCli(['--credits', '5'], {}).options.accounts).toEqual([
			{ username: 'demo', password: 'demo-password', credits: 5 },
		]);
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
