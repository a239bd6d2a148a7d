/* eslint-disable
	@n8n/community-nodes/no-dangerous-functions,
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * One n8n instance, as the demo, the editor and the e2e tests run it: a user folder (one database,
 * one encryption key), a package tarball installed into it the way users install it, n8n's CLI
 * commands, and the servers it starts. Everything binds 127.0.0.1.
 *
 * Facts behind the settings: docs/running-in-n8n.md.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
	finished,
	forgetTempFolder,
	killGroup,
	spawnGroup,
	trackTempFolder,
	type CliResult,
} from './processes';
import { freePort } from '../ports';
import { provision, type Provisioned } from './provision';
import { extractRunData, type Json, type JsonObject } from './runData';
import { N8nServer, type ServerOptions } from './server';

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

	/** The settings docs/running-in-n8n.md gives: loopback only, nothing phoning home, a fixed key for this folder. */
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
		const result = await finished(child);
		clearTimeout(timer);
		await killGroup(child, 0); // task runners it forked must not outlive it
		return result;
	}

	/** Starts `n8n <args>` in this user folder, as its own tracked process group. */
	spawn(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
		return spawnGroup(this.provisioned.nodeBin, [this.provisioned.n8nBin, ...args], {
			env,
			cwd: this.userFolder,
		});
	}

	/** `cli`, failing with n8n's output when the command does. */
	async cliOk(args: string[]): Promise<CliResult> {
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

	/**
	 * `n8n start` on this instance's first start: the owner set up and logged in, and an API key
	 * for the public API (activation, executions), as every suite and script needs it.
	 */
	async startServerAsOwner(options: ServerOptions = {}, apiKeyLabel?: string): Promise<N8nServer> {
		const server = await this.startServer(options);
		await server.setupOwner();
		await server.createApiKey(apiKeyLabel);
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
