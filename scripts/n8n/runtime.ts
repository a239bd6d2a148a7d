/* eslint-disable
	@n8n/community-nodes/no-dangerous-functions,
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * Runs the real n8n product with a package tarball installed the way users install it, for the
 * demo, the editor and the e2e tests. Everything binds 127.0.0.1; every process started here is
 * the leader of its own process group, and `stop()` ends those groups (no orphans).
 *
 * Facts behind the settings: docs/running-in-n8n.md.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { provision, type Provisioned } from './provision';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface CliResult {
	code: number;
	stdout: string;
	stderr: string;
}

export interface Owner {
	email: string;
	password: string;
	firstName: string;
	lastName: string;
}

export const DEFAULT_OWNER: Owner = {
	email: 'owner@example.com',
	password: 'Bulk-sms-e2e-1',
	firstName: 'Demo',
	lastName: 'Owner',
};

// ---------------------------------------------------------------------------------------------
// processes

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

/** A free loopback port: n8n takes three (HTTP, task broker of the server, task broker of `execute`). */
export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as net.AddressInfo;
			server.close(() => resolve(port));
		});
	});
}

// ---------------------------------------------------------------------------------------------
// the instance: one user folder, one database

export interface InstanceOptions {
	/** keep the user folder after stop() (to look at the database or logs); default false */
	keepUserFolder?: boolean;
	/**
	 * The key n8n encrypts credentials with; default: one per user folder. Processes that share a
	 * database (queue mode: main and workers) must share it.
	 */
	encryptionKey?: string;
	/** Settings for every command of this instance (queue mode: the database and Redis). */
	env?: NodeJS.ProcessEnv;
}

export class N8nInstance {
	readonly userFolder: string;
	private readonly servers = new Set<N8nServer>();

	private constructor(
		readonly provisioned: Provisioned,
		private readonly options: InstanceOptions,
	) {
		this.userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'bulksms-n8n-'));
		if (!options.keepUserFolder) trackTempFolder(this.userFolder);
	}

	static async create(options: InstanceOptions = {}): Promise<N8nInstance> {
		return new N8nInstance(await provision(), options);
	}

	/** The settings DESIGN.md lists: loopback only, nothing phoning home, a fixed key for this folder. */
	env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
		return {
			...this.provisioned.env,
			N8N_USER_FOLDER: this.userFolder,
			N8N_ENCRYPTION_KEY: this.encryptionKey(),
			N8N_DIAGNOSTICS_ENABLED: 'false',
			N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
			N8N_TEMPLATES_ENABLED: 'false',
			N8N_PERSONALIZATION_ENABLED: 'false',
			N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
			N8N_HOST: '127.0.0.1',
			N8N_LISTEN_ADDRESS: '127.0.0.1',
			N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
			N8N_SECURE_COOKIE: 'false',
			// below 'info' `n8n execute` prints no run data
			N8N_LOG_LEVEL: 'info',
			...this.options.env,
			...extra,
		};
	}

	/** One key per user folder, kept in it, so every command of this instance decrypts the same data. */
	private encryptionKey(): string {
		if (this.options.encryptionKey) return this.options.encryptionKey;
		const file = path.join(this.userFolder, 'encryption-key');
		if (!fs.existsSync(file)) fs.writeFileSync(file, randomBytes(24).toString('hex'));
		return fs.readFileSync(file, 'utf8');
	}

	/** Runs an n8n CLI command to its end. Its own task broker port, so it works beside a server. */
	async cli(args: string[], timeoutMs = 120_000): Promise<CliResult> {
		const env = this.env({
			N8N_RUNNERS_BROKER_PORT: String(await freePort()),
			N8N_PORT: String(await freePort()),
		});
		const child = this.spawn(args, env);
		const timer = setTimeout(() => void killGroup(child, 0), timeoutMs);
		const [stdout, stderr, code] = await Promise.all([
			collect(child.stdout),
			collect(child.stderr),
			exitCode(child),
		]);
		clearTimeout(timer);
		await killGroup(child, 0); // task runners it forked must not outlive it
		return { code, stdout, stderr };
	}

	/** Starts `n8n <args>` in this user folder, as its own tracked process group. */
	spawn(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
		return spawnGroup(this.provisioned.nodeBin, [this.provisioned.n8nBin, ...args], {
			env,
			cwd: this.userFolder,
		});
	}

	private async cliOk(args: string[]): Promise<CliResult> {
		const result = await this.cli(args);
		if (result.code !== 0) {
			throw new Error(
				`n8n ${args.join(' ')} exited ${result.code}\n${result.stdout}\n${result.stderr}`,
			);
		}
		return result;
	}

	/**
	 * Installs a package tarball the way n8n 2.41.1 installs a community package from its UI
	 * (CommunityPackagesService.downloadPackage, after its `npm pack`): unpack into
	 * `~/.n8n/nodes/node_modules/<name>`, drop dev/peer/optional dependencies (n8n provides
	 * n8n-workflow), `npm install` what remains, record it in `~/.n8n/nodes/package.json`.
	 * n8n scans that folder at start and loads the nodes as `<name>.<node>`.
	 */
	installPackage(tarball: string): { name: string; version: string; folder: string } {
		const manifest = readTarballManifest(tarball);
		const nodesFolder = path.join(this.userFolder, '.n8n', 'nodes');
		const folder = path.join(nodesFolder, 'node_modules', manifest.name);
		fs.rmSync(folder, { recursive: true, force: true });
		fs.mkdirSync(folder, { recursive: true });
		runOk(
			'tar',
			['-xzf', path.resolve(tarball), '-C', folder, '--strip-components=1'],
			nodesFolder,
			process.env,
		);
		const installed = { ...manifest.json };
		for (const field of NOT_INSTALLED) delete installed[field];
		fs.writeFileSync(path.join(folder, 'package.json'), JSON.stringify(installed, null, 2));
		const npmArgs = [
			'install',
			'--audit=false',
			'--fund=false',
			'--bin-links=false',
			'--install-strategy=shallow',
		];
		runOk(
			'npm',
			[...npmArgs, '--ignore-scripts=true', '--package-lock=false'],
			folder,
			this.provisioned.env,
		);
		recordDependency(nodesFolder, manifest.name, manifest.version);
		return { name: manifest.name, version: manifest.version, folder };
	}

	async importCredential(credential: JsonObject): Promise<void> {
		await this.importCredentials([credential]);
	}

	/** Several at once when you can: each n8n command spends seconds loading every node type. */
	async importCredentials(credentials: JsonObject[]): Promise<void> {
		await this.importFile('import:credentials', 'credential', credentials);
	}

	/** Several at once when you can: each n8n command spends seconds loading every node type. */
	async importWorkflow(workflows: JsonObject | JsonObject[]): Promise<void> {
		await this.importFile('import:workflow', 'workflow', workflows);
	}

	/** The input file holds the credential in plain text: it lives only as long as the import. */
	private async importFile(command: string, kind: string, data: Json): Promise<void> {
		const file = path.join(this.userFolder, `${kind}-${randomBytes(4).toString('hex')}.json`);
		fs.writeFileSync(file, JSON.stringify(data, null, 2), { mode: 0o600 });
		try {
			await this.cliOk([command, `--input=${file}`]);
		} finally {
			fs.rmSync(file, { force: true });
		}
	}

	/** `n8n execute` of a workflow that starts with a Manual Trigger; returns n8n's run data. */
	async executeWorkflow(id: string): Promise<JsonObject> {
		const result = await this.cli(['execute', `--id=${id}`, '--rawOutput']);
		const runData = extractRunData(result.stdout);
		if (result.code !== 0 || runData === undefined) {
			throw new Error(
				`n8n execute --id=${id} exited ${result.code}\n${result.stdout}\n${result.stderr}`,
			);
		}
		return runData;
	}

	async startServer(options: ServerOptions = {}): Promise<N8nServer> {
		const server = await N8nServer.start(this, options);
		this.servers.add(server);
		return server;
	}

	/** Stops every server of this instance and deletes its user folder: the instance is done. */
	async stop(): Promise<void> {
		await Promise.all([...this.servers].map((server) => server.stop()));
		this.servers.clear();
		if (!this.options.keepUserFolder) fs.rmSync(this.userFolder, { recursive: true, force: true });
		forgetTempFolder(this.userFolder);
	}
}

/** What n8n's installer strips before `npm install` (n8n itself provides n8n-workflow). */
const NOT_INSTALLED = ['devDependencies', 'peerDependencies', 'optionalDependencies'];

interface TarballManifest {
	name: string;
	version: string;
	json: { [key: string]: unknown };
}

function readTarballManifest(tarball: string): TarballManifest {
	// `npm pack` puts every file under package/.
	const result = spawnSync('tar', ['-xzOf', path.resolve(tarball), 'package/package.json'], {
		encoding: 'utf8',
	});
	if (result.status !== 0)
		throw new Error(`${tarball} is not an npm package tarball: ${result.stderr}`);
	const json = JSON.parse(result.stdout) as { name: string; version: string };
	return { name: json.name, version: json.version, json };
}

function recordDependency(nodesFolder: string, name: string, version: string): void {
	const file = path.join(nodesFolder, 'package.json');
	type NodesManifest = { dependencies?: Record<string, string> };
	const manifest: NodesManifest = fs.existsSync(file)
		? (JSON.parse(fs.readFileSync(file, 'utf8')) as NodesManifest)
		: { dependencies: {} };
	manifest.dependencies = { ...manifest.dependencies, [name]: version };
	fs.writeFileSync(file, JSON.stringify(manifest, null, 2));
}

function runOk(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): void {
	const result = spawnSync(command, args, { cwd, env, encoding: 'utf8' });
	if (result.status !== 0)
		throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${result.stderr}`);
}

/**
 * `n8n execute --rawOutput` prints logs, then the run data pretty-printed: the JSON block that
 * starts with a line `{` and ends with a line `}`.
 */
export function extractRunData(stdout: string): JsonObject | undefined {
	const lines = stdout.split('\n');
	const start = lines.indexOf('{');
	const end = lines.lastIndexOf('}');
	if (start < 0 || end < start) return undefined;
	return JSON.parse(lines.slice(start, end + 1).join('\n')) as JsonObject;
}

type RunData = {
	data: {
		resultData: {
			error?: unknown;
			runData: Record<
				string,
				Array<{ data?: { main: Array<Array<{ json: JsonObject }> | null> } }>
			>;
		};
	};
};

/**
 * The items a node sent to one of its outputs, one list per time it ran (a node in a loop runs
 * several times), from n8n's run data. Throws with n8n's error when the node never ran.
 */
export function nodeRuns(run: JsonObject, nodeName: string, output = 0): JsonObject[][] {
	const { resultData } = (run as unknown as RunData).data;
	const runs = resultData.runData[nodeName];
	if (!runs) {
		throw new Error(`${nodeName} did not run: ${JSON.stringify(resultData.error ?? {})}`);
	}
	return runs.map((one) => (one.data?.main[output] ?? []).map((item) => item.json));
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

// ---------------------------------------------------------------------------------------------
// the server: `n8n start` and the HTTP calls tests and scripts need

export interface ServerOptions {
	/** fixed HTTP port (the editor script wants a stable URL); default: a free one */
	port?: number;
	/** settings for this process only (queue mode: a restart of main with other scheduler settings) */
	env?: NodeJS.ProcessEnv;
}

export interface RequestOptions {
	body?: Json;
	/** 'cookie' (logged-in browser session), 'apiKey' (public API), or 'none' */
	auth?: 'cookie' | 'apiKey' | 'none';
}

/**
 * For `waitForExecutions`: at least `count` executions, none still running (n8n lists one before
 * its data is saved).
 */
export const settled = (count: number) => (summaries: JsonObject[]) =>
	summaries.length >= count && summaries.every((execution) => Boolean(execution.stoppedAt));

export class N8nServer {
	private cookie?: string;
	private apiKey?: string;
	private output = '';

	private constructor(
		readonly baseUrl: string,
		private readonly child: ChildProcess,
	) {}

	static async start(instance: N8nInstance, options: ServerOptions): Promise<N8nServer> {
		const port = options.port ?? (await freePort());
		const env = instance.env({
			N8N_PORT: String(port),
			N8N_RUNNERS_BROKER_PORT: String(await freePort()),
			...options.env,
		});
		const child = instance.spawn(['start'], env);
		const server = new N8nServer(`http://127.0.0.1:${port}`, child);
		captureOutput(child, (text) => {
			server.output += text;
		});
		await server.waitReady(90_000);
		return server;
	}

	/** What the process printed so far (n8n logs to stdout). */
	get log(): string {
		return this.output;
	}

	/** Process id (and process group id) of `n8n start`. */
	get pid(): number | undefined {
		return this.child.pid;
	}

	private async waitReady(timeoutMs: number): Promise<void> {
		const deadline = Date.now() + timeoutMs;
		while (Date.now() < deadline) {
			if (this.child.exitCode !== null) break;
			try {
				// n8n 1.x is "ready" seconds before its REST routes are: wait for the editor's first call too.
				const ready = await fetch(`${this.baseUrl}/healthz/readiness`);
				if (ready.ok && (await fetch(`${this.baseUrl}/rest/settings`)).ok) return;
			} catch {
				// not listening yet
			}
			await sleep(250);
		}
		await this.stop();
		throw new Error(
			`n8n start was not ready at ${this.baseUrl} in ${timeoutMs} ms:\n${this.output}`,
		);
	}

	async request<T = Json>(
		method: string,
		urlPath: string,
		options: RequestOptions = {},
	): Promise<T> {
		const response = await this.fetch(method, urlPath, options);
		const text = await response.text();
		if (!response.ok) throw new Error(`${method} ${urlPath} answered ${response.status}: ${text}`);
		return (text ? JSON.parse(text) : null) as T;
	}

	async fetch(method: string, urlPath: string, options: RequestOptions = {}): Promise<Response> {
		const headers: Record<string, string> = { accept: 'application/json' };
		if (options.body !== undefined) headers['content-type'] = 'application/json';
		const auth = options.auth ?? 'cookie';
		if (auth === 'cookie' && this.cookie) headers.cookie = this.cookie;
		if (auth === 'apiKey' && this.apiKey) headers['x-n8n-api-key'] = this.apiKey;
		const body = options.body === undefined ? undefined : JSON.stringify(options.body);
		return fetch(`${this.baseUrl}${urlPath}`, { method, headers, body });
	}

	/** Creates the instance owner (first start only) and keeps its session cookie. */
	async setupOwner(owner: Owner = DEFAULT_OWNER): Promise<void> {
		const response = await this.fetch('POST', '/rest/owner/setup', {
			body: { ...owner },
			auth: 'none',
		});
		if (!response.ok)
			throw new Error(`owner setup answered ${response.status}: ${await response.text()}`);
		this.keepCookie(response);
	}

	/** Logs in an existing owner (a restarted server) and keeps the session cookie. */
	async login(owner: Owner = DEFAULT_OWNER): Promise<void> {
		const response = await this.fetch('POST', '/rest/login', {
			body: { emailOrLdapLoginId: owner.email, password: owner.password },
			auth: 'none',
		});
		if (!response.ok)
			throw new Error(`login answered ${response.status}: ${await response.text()}`);
		this.keepCookie(response);
	}

	/** Uses an API key made earlier (by this instance's previous server) for the public API. */
	useApiKey(apiKey: string): void {
		this.apiKey = apiKey;
	}

	private keepCookie(response: Response): void {
		const auth = response.headers.getSetCookie().find((cookie) => cookie.startsWith('n8n-auth='));
		if (!auth) throw new Error('n8n set no n8n-auth cookie');
		this.cookie = auth.split(';')[0];
	}

	/** An API key for the public API (`/api/v1`), with every scope the owner has. */
	async createApiKey(label = 'bulk-sms-e2e'): Promise<string> {
		const scopes = await this.request<{ data: string[] }>('GET', '/rest/api-keys/scopes');
		const created = await this.request<{ data: { rawApiKey?: string; apiKey: string } }>(
			'POST',
			'/rest/api-keys',
			{
				body: { label, scopes: scopes.data, expiresAt: null },
			},
		);
		this.apiKey = created.data.rawApiKey ?? created.data.apiKey;
		return this.apiKey;
	}

	/** Node types the running n8n loaded: the editor's own listing. */
	async nodeTypes(): Promise<JsonObject[]> {
		return this.request<JsonObject[]>('GET', '/types/nodes.json');
	}

	async credentialTypes(): Promise<JsonObject[]> {
		return this.request<JsonObject[]>('GET', '/types/credentials.json');
	}

	async activateWorkflow(id: string): Promise<JsonObject> {
		return this.request<JsonObject>('POST', `/api/v1/workflows/${id}/activate`, { auth: 'apiKey' });
	}

	async deactivateWorkflow(id: string): Promise<JsonObject> {
		return this.request<JsonObject>('POST', `/api/v1/workflows/${id}/deactivate`, {
			auth: 'apiKey',
		});
	}

	/**
	 * Makes an active polling trigger poll now. n8n polls once on activation and then on its
	 * schedule, at least a minute apart; static data survives the reactivation.
	 */
	async pollNow(id: string): Promise<void> {
		await this.deactivateWorkflow(id);
		await this.activateWorkflow(id);
	}

	/**
	 * A workflow's executions (the latest 100), newest first, as the editor lists them: id, status,
	 * stoppedAt, no run data. The editor's list reads the database. The public API's list leaves out
	 * what main counts as running, and in queue mode main can count a finished execution as running
	 * until it restarts: it waits for the job's end after enqueuing it, and misses that end when a
	 * worker is faster (n8n removes finished jobs from the queue at once). docs/queue-mode.md.
	 */
	async executionSummaries(workflowId: string): Promise<JsonObject[]> {
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		const list = await this.request<{ data: { results: JsonObject[] } }>(
			'GET',
			`/rest/executions?filter=${filter}&limit=100`,
		);
		return list.data.results.sort((a, b) => Number(b.id) - Number(a.id));
	}

	/** The same executions, each read by id with its run data. */
	async executions(workflowId: string): Promise<JsonObject[]> {
		return this.withRunData(await this.executionSummaries(workflowId));
	}

	/**
	 * Polls the summaries until `done` accepts them (the trigger runs on its own schedule), then
	 * reads those executions with their run data: once, not on every poll.
	 */
	async waitForExecutions(
		workflowId: string,
		done: (summaries: JsonObject[]) => boolean,
		timeoutMs = 90_000,
	): Promise<JsonObject[]> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const summaries = await this.executionSummaries(workflowId);
			if (done(summaries)) return this.withRunData(summaries);
			if (Date.now() > deadline) {
				const states = summaries.map(({ id, status, stoppedAt }) => ({ id, status, stoppedAt }));
				throw new Error(
					`executions of ${workflowId} not as expected after ${timeoutMs} ms: ${JSON.stringify(states)}`,
				);
			}
			await sleep(500);
		}
	}

	private withRunData(summaries: JsonObject[]): Promise<JsonObject[]> {
		return Promise.all(
			summaries.map(({ id }) =>
				this.request<JsonObject>('GET', `/api/v1/executions/${String(id)}?includeData=true`, {
					auth: 'apiKey',
				}),
			),
		);
	}

	/** TERM, then KILL after `graceMs` (n8n may wait for running executions meanwhile). */
	async stop(graceMs = 5000): Promise<void> {
		await killGroup(this.child, graceMs);
	}
}
