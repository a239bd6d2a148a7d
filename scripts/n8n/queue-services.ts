/* eslint-disable
	@n8n/community-nodes/no-dangerous-functions,
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	@n8n/community-nodes/require-node-api-error
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * Postgres and Redis for n8n's queue mode, each on a free loopback port, in a temporary folder,
 * as a tracked process group (processes.ts): stopped by `stop()`, and also when the test run or the
 * script ends early. Why these packages: docs/queue-mode.md.
 */
import type { ChildProcess } from 'node:child_process';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { provisionPostgres } from './provision';
import {
	captureOutput,
	forgetTempFolder,
	killGroup,
	spawnGroup,
	trackTempFolder,
} from './processes';
import { freePort } from '../ports';

/** A started service: where it listens, its process group, how to stop it. */
export interface Service {
	name: string;
	port: number;
	process: ChildProcess;
	stop(): Promise<void>;
}

export interface PostgresService extends Service {
	user: string;
	password: string;
	database: string;
}

/** Postgres refuses to run as root: as root, run it as `nobody`, which every Debian has. */
const UNPRIVILEGED = { uid: 65534, gid: 65534 };
const runningAsRoot = () => process.getuid?.() === 0;

function asUnprivileged(command: string, args: string[]): [string, string[]] {
	if (!runningAsRoot()) return [command, args];
	const { uid, gid } = UNPRIVILEGED;
	return [
		'setpriv',
		[`--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--', command, ...args],
	];
}

function chownTree(dir: string): void {
	if (!runningAsRoot()) return;
	const result = spawnSync('chown', ['-R', `${UNPRIVILEGED.uid}:${UNPRIVILEGED.gid}`, dir]);
	if (result.status !== 0) throw new Error(`chown ${dir} failed: ${String(result.stderr)}`);
}

function tempFolder(prefix: string): string {
	const folder = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
	trackTempFolder(folder);
	return folder;
}

function removeTempFolder(folder: string): void {
	fs.rmSync(folder, { recursive: true, force: true });
	forgetTempFolder(folder);
}

/** Waits for a line in a process's output; fails with that output if it ends or takes too long. */
function waitForLine(
	child: ChildProcess,
	name: string,
	pattern: RegExp,
	timeoutMs: number,
): Promise<string> {
	return new Promise((resolve, reject) => {
		let output = '';
		const timer = setTimeout(
			() => fail(`${name} was not ready in ${timeoutMs} ms:\n${output}`),
			timeoutMs,
		);
		const fail = (message: string) => {
			clearTimeout(timer);
			reject(new Error(message));
		};
		captureOutput(child, (text) => {
			output += text;
			if (pattern.test(output)) {
				clearTimeout(timer);
				resolve(output);
			}
		});
		child.once('exit', (code) => fail(`${name} exited (${code}) before it was ready:\n${output}`));
	});
}

/**
 * A throwaway cluster: initdb with trust on loopback, no fsync (the data dies with the test).
 * As root the binaries are copied next to the data, because the cache under /root is closed to
 * other users.
 */
export async function startPostgres(): Promise<PostgresService> {
	const native = await provisionPostgres();
	const folder = tempFolder('bulksms-postgres-');
	const home = runningAsRoot() ? copyBinaries(native, folder) : native;
	const data = path.join(folder, 'data');
	const user = 'n8n';
	const env = { ...process.env, LC_ALL: 'C', LANG: 'C' };
	chownTree(folder);
	const [initdb, initdbArgs] = asUnprivileged(path.join(home, 'bin', 'initdb'), [
		`--pgdata=${data}`,
		`--username=${user}`,
		'--auth=trust',
		'--encoding=UTF8',
		'--no-sync',
	]);
	const init = spawnSync(initdb, initdbArgs, { cwd: folder, env, encoding: 'utf8' });
	if (init.status !== 0) {
		removeTempFolder(folder);
		throw new Error(`initdb failed:\n${init.stdout}\n${init.stderr}`);
	}

	const port = await freePort();
	const [postgres, args] = asUnprivileged(path.join(home, 'bin', 'postgres'), [
		'-D',
		data,
		'-p',
		String(port),
		'-h',
		'127.0.0.1',
		'-k',
		folder,
		'-c',
		'fsync=off',
		'-c',
		'synchronous_commit=off',
		'-c',
		'full_page_writes=off',
		'-c',
		'max_connections=200',
	]);
	const child = spawnGroup(postgres, args, { cwd: folder, env });
	const stop = async () => {
		// SIGINT is Postgres's fast shutdown (TERM waits for every client to leave).
		await killGroup(child, 5000, 'SIGINT');
		removeTempFolder(folder);
	};
	try {
		await waitForLine(child, 'postgres', /ready to accept connections/, 30_000);
	} catch (error) {
		await stop();
		throw error;
	}
	return {
		name: 'postgres',
		port,
		process: child,
		stop,
		user,
		password: 'n8n',
		database: 'postgres',
	};
}

function copyBinaries(native: string, folder: string): string {
	const home = path.join(folder, 'pg');
	fs.cpSync(native, home, { recursive: true, verbatimSymlinks: true });
	return home;
}

/** Debian's redis-server, nothing written to disk. */
export async function startRedis(): Promise<Service> {
	const folder = tempFolder('bulksms-redis-');
	const port = await freePort();
	const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
	const child = spawnGroup('redis-server', [...args, '--dir', folder], {
		cwd: folder,
		env: process.env,
	});
	const stop = async () => {
		await killGroup(child, 3000);
		removeTempFolder(folder);
	};
	child.once('error', () => undefined); // reported by waitForLine as an exit
	try {
		await waitForLine(child, 'redis-server', /Ready to accept connections/, 15_000);
	} catch (error) {
		await stop();
		throw new Error(
			`${(error as Error).message}\n(redis-server comes from Debian: apt-get install redis-server, as .ci/run does)`,
		);
	}
	return { name: 'redis', port, process: child, stop };
}

/**
 * Resident memory of a process group and the direct children of its leader (n8n and its task
 * runner; Postgres and its backends, which leave the group), MB. Shared pages count once per process.
 */
export function groupMemoryMb(pid: number | undefined): number {
	if (pid === undefined) return 0;
	const args = ['-o', 'rss=', '-g', String(pid), '--ppid', String(pid)];
	const result = spawnSync('ps', args, { encoding: 'utf8' });
	// Without procps (a slim image) the figure is 0: memory is reported, never asserted.
	const kb = (result.stdout ?? '')
		.split('\n')
		.map((line) => Number(line.trim()))
		.filter((value) => Number.isFinite(value))
		.reduce((sum, value) => sum + value, 0);
	return Math.round(kb / 1024);
}
