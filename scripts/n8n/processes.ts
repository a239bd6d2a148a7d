/* eslint-disable
	@n8n/community-nodes/no-dangerous-functions,
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * Processes of the real n8n product and the services around it (Postgres, Redis): each one the
 * leader of its own process group, tracked, and ended with its group, by `killGroup`, when we exit,
 * or by the test runner when a test run ends early. Temp folders are tracked the same way.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface CliResult {
	code: number;
	stdout: string;
	stderr: string;
}

const running = new Set<ChildProcess>();
/**
 * Temp folders of instances and services not yet stopped (user folders, Postgres data), removed on
 * exit too, and by the test runner's process when a test run ends early (see GROUPS_DIR).
 */
const userFolders = new Set<string>();

const FOLDER_PREFIX = 'folder-';

/** A temp folder to delete if we end before its owner does (stop() calls forgetTempFolder). */
export function trackTempFolder(folder: string): void {
	userFolders.add(folder);
	if (GROUPS_DIR) fs.writeFileSync(path.join(GROUPS_DIR, folderEntry(folder)), folder);
}

export function forgetTempFolder(folder: string): void {
	userFolders.delete(folder);
	if (GROUPS_DIR) fs.rmSync(path.join(GROUPS_DIR, folderEntry(folder)), { force: true });
}

function folderEntry(folder: string): string {
	return FOLDER_PREFIX + Buffer.from(folder).toString('base64url');
}

/**
 * Kills a process group: TERM (or `signal`) first so n8n closes its database, KILL for whatever is
 * left after `graceMs`.
 */
export async function killGroup(
	child: ChildProcess,
	graceMs = 5000,
	signal: NodeJS.Signals = 'SIGTERM',
): Promise<void> {
	const pid = child.pid;
	if (pid === undefined) return;
	signalGroup(pid, signal);
	const deadline = Date.now() + graceMs;
	while (groupAlive(pid) && Date.now() < deadline) await sleep(100);
	signalGroup(pid, 'SIGKILL');
	running.delete(child);
	if (GROUPS_DIR) fs.rmSync(path.join(GROUPS_DIR, String(pid)), { force: true });
}

/**
 * Jest gives test files their own `process` events, so the exit hook below never fires in a
 * test run. When BULKSMS_N8N_GROUPS_DIR is set (by e2e/global-setup.ts), each n8n process group
 * is also recorded there, and the test runner's own process kills what is left.
 */
const GROUPS_DIR = process.env.BULKSMS_N8N_GROUPS_DIR;

function track(child: ChildProcess): void {
	running.add(child);
	if (GROUPS_DIR && child.pid !== undefined)
		fs.writeFileSync(path.join(GROUPS_DIR, String(child.pid)), '');
}

/**
 * Starts a program as the leader of its own process group, tracked like n8n's processes: stopped
 * by `killGroup`, and also when we exit or a test run ends (queue mode starts Postgres and Redis).
 */
export function spawnGroup(
	command: string,
	args: string[],
	options: { cwd: string; env: NodeJS.ProcessEnv },
): ChildProcess {
	const child = spawn(command, args, {
		...options,
		detached: true,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	track(child);
	return child;
}

/** Everything a process writes to stdout and stderr, as it comes (for logs and readiness lines). */
export function captureOutput(child: ChildProcess, sink: (text: string) => void): void {
	for (const stream of [child.stdout, child.stderr])
		stream?.on('data', (chunk: Buffer) => sink(chunk.toString('utf8')));
}

/** Kills every process group recorded in `dir` (see GROUPS_DIR), then deletes the temp folders. */
export function killRecordedGroups(dir: string): void {
	if (!fs.existsSync(dir)) return;
	const names = fs.readdirSync(dir);
	for (const name of names.filter((entry) => !entry.startsWith(FOLDER_PREFIX))) {
		signalGroup(Number(name), 'SIGKILL');
		fs.rmSync(path.join(dir, name), { force: true });
	}
	for (const name of names.filter((entry) => entry.startsWith(FOLDER_PREFIX))) {
		const entry = path.join(dir, name);
		fs.rmSync(fs.readFileSync(entry, 'utf8'), { recursive: true, force: true });
		fs.rmSync(entry, { force: true });
	}
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
	try {
		process.kill(-pid, signal);
	} catch {
		// the group is already gone
	}
}

function groupAlive(pid: number): boolean {
	try {
		process.kill(-pid, 0);
		return true;
	} catch {
		return false;
	}
}

// A test runner or a Ctrl-C can end us before stop(): still take the n8n processes down with us.
process.on('exit', () => {
	for (const child of running) if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
	for (const folder of userFolders) fs.rmSync(folder, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
	process.on(signal, () => {
		// Only when nobody else handles the signal (the editor stops gracefully by itself): die as
		// the default action would, but through 'exit', which takes the process groups down.
		if (process.listenerCount(signal) === 1) process.exit(128 + os.constants.signals[signal]);
	});
}

export function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves once `condition()` holds, checked every 200 ms; fails after `timeoutMs`, naming `what`. */
export async function waitUntil(
	condition: () => boolean | Promise<boolean>,
	timeoutMs: number,
	what = 'condition',
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!(await condition())) {
		if (Date.now() > deadline) throw new Error(`${what} not met in ${timeoutMs} ms`);
		await sleep(200);
	}
}

/** Waits for a process to end, with all it wrote to stdout and stderr. */
export async function finished(child: ChildProcess): Promise<CliResult> {
	const [stdout, stderr, code] = await Promise.all([
		collect(child.stdout),
		collect(child.stderr),
		exitCode(child),
	]);
	return { code, stdout, stderr };
}

function collect(stream: NodeJS.ReadableStream | null): Promise<string> {
	return new Promise((resolve) => {
		if (!stream) return resolve('');
		const chunks: Buffer[] = [];
		stream.on('data', (chunk: Buffer) => chunks.push(chunk));
		stream.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
	});
}

/** The exit code, or 128 + signal number as a shell reports a process killed by a signal. */
function exitCode(child: ChildProcess): Promise<number> {
	return new Promise((resolve) =>
		child.once('exit', (code, signal) =>
			resolve(code ?? 128 + (signal ? os.constants.signals[signal] : 0)),
		),
	);
}
