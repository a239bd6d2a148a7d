/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * The sandbox's flags and environment variables (the list is USAGE in cli.ts), read into the
 * options of startSandbox(): a flag wins over its variable, and a bad value is refused with what
 * was wrong.
 */
import { parseArgs } from 'node:util';
import { checkCallbackUrl, type CallbackOptions } from './callbackSettings';
import type { FaultOptions } from './faults';
import { DEFAULT_NETWORKS, type NetworkRule } from './numbers';
import { DEMO_ACCOUNT, defaultOptions, SANDBOX_PORT, type SandboxOptions } from './options';
import { firstBatchId, type Account } from './store';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3600_000, d: 86_400_000 };

export function parseDuration(text: string): number {
	const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/.exec(text.trim());
	if (!m) throw new Error(`not a duration: "${text}" (e.g. 250ms, 5s, 2m, 1h, 3d)`);
	return Math.round(Number(m[1]) * UNITS[m[2] ?? 'ms']);
}

function parseNumber(text: string, what: string, min = 0, max = Infinity): number {
	const n = Number(text);
	if (text.trim() === '' || !Number.isFinite(n) || n < min || n > max) {
		throw new Error(`${what}: "${text}" is not a number from ${min} to ${max}`);
	}
	return n;
}

function parseCredits(text: string, what: string): number {
	const credits = parseNumber(text, what);
	if (!Number.isInteger(credits)) throw new Error(`${what} must be whole: "${text}"`);
	return credits;
}

/**
 * USER:PASS:CREDITS, or USER:PASS with `credits` (from --credits). With two colons or more the
 * last part is the credits and the password is everything in between, so it may hold colons.
 */
export function parseAccount(text: string, credits = DEMO_ACCOUNT.credits): Account {
	const first = text.indexOf(':');
	const last = text.lastIndexOf(':');
	if (first <= 0) throw new Error(`account: "${text}" is not USER:PASSWORD[:CREDITS]`);
	const username = text.slice(0, first);
	if (last === first) return { username, password: text.slice(first + 1), credits };
	const own = parseCredits(text.slice(last + 1), 'account credits');
	return { username, password: text.slice(first + 1, last), credits: own };
}

export function parseNetwork(text: string): NetworkRule {
	const [prefix, id, max] = text.split(':');
	if (!/^\d*$/.test(prefix ?? '') || !/^\d+$/.test(id ?? '') || !max) {
		throw new Error(`network: "${text}" is not PREFIX:NETWORK_ID:MAX_VALIDITY (e.g. 44:23410:3d)`);
	}
	return { prefix, networkId: Number(id), maxValidityMs: parseDuration(max) };
}

function parseRateLimit(text: string): { limit: number; windowMs: number } {
	const [n, window] = text.split('/');
	if (!window) throw new Error(`rate limit: "${text}" is not N/DURATION (e.g. 10/1s)`);
	return { limit: parseNumber(n, 'rate limit', 1), windowMs: parseDuration(window) };
}

/** Configured networks replace the default for the same prefix and add the others. */
function withNetworks(extra: NetworkRule[]): NetworkRule[] {
	const prefixes = new Set(extra.map((n) => n.prefix));
	return [...DEFAULT_NETWORKS.filter((n) => !prefixes.has(n.prefix)), ...extra];
}

const FLAGS = {
	host: { type: 'string' },
	port: { type: 'string' },
	account: { type: 'string', multiple: true },
	credits: { type: 'string' },
	'time-scale': { type: 'string' },
	'final-after': { type: 'string' },
	'time-zone': { type: 'string' },
	network: { type: 'string', multiple: true },
	'state-file': { type: 'string' },
	latency: { type: 'string' },
	'error-500-rate': { type: 'string' },
	'error-503-rate': { type: 'string' },
	'error-429-rate': { type: 'string' },
	'retry-after': { type: 'string' },
	'drop-before-rate': { type: 'string' },
	'drop-after-rate': { type: 'string' },
	'rate-limit': { type: 'string' },
	'fault-seed': { type: 'string' },
	'first-batch-id': { type: 'string' },
	mislabel: { type: 'boolean' },
	'answer-format': { type: 'string' },
	'callback-url': { type: 'string', multiple: true },
	'callback-format': { type: 'string' },
	'callback-batch': { type: 'string' },
	'callback-attempts': { type: 'string' },
	'callback-retry': { type: 'string' },
	'callback-timeout': { type: 'string' },
	'callback-duplicate-rate': { type: 'string' },
	'callback-reorder-rate': { type: 'string' },
	'callback-delay-rate': { type: 'string' },
	'callback-delay': { type: 'string' },
	'callback-duplicate-after': { type: 'string' },
	'callback-spacing': { type: 'string' },
	'callback-in-flight': { type: 'string' },
	'callback-burst-rate': { type: 'string' },
	'callback-burst-copies': { type: 'string' },
	'no-admin': { type: 'boolean' },
	quiet: { type: 'boolean' },
	help: { type: 'boolean' },
} as const;

type Env = Record<string, string | undefined>;

function listFrom(flag: string[] | undefined, env: string | undefined): string[] {
	if (flag?.length) return flag;
	return (env ?? '')
		.split(',')
		.map((s) => s.trim())
		.filter((s) => s !== '');
}

function faultsFrom(get: (flag: string, env: string) => string | undefined): Partial<FaultOptions> {
	const faults: Partial<FaultOptions> = {};
	const rate = (flag: string, env: string, key: keyof FaultOptions) => {
		const v = get(flag, env);
		if (v !== undefined) (faults as Record<string, number>)[key] = parseNumber(v, flag, 0, 1);
	};
	rate('error-500-rate', 'SANDBOX_ERROR_500_RATE', 'error500Rate');
	rate('error-503-rate', 'SANDBOX_ERROR_503_RATE', 'error503Rate');
	rate('error-429-rate', 'SANDBOX_ERROR_429_RATE', 'error429Rate');
	rate('drop-before-rate', 'SANDBOX_DROP_BEFORE_RATE', 'dropBeforeRate');
	rate('drop-after-rate', 'SANDBOX_DROP_AFTER_RATE', 'dropAfterRate');
	const latency = get('latency', 'SANDBOX_LATENCY');
	if (latency !== undefined) faults.latencyMs = parseDuration(latency);
	const retryAfter = get('retry-after', 'SANDBOX_RETRY_AFTER');
	if (retryAfter !== undefined)
		faults.retryAfterSeconds = parseNumber(retryAfter, 'retry-after', 0);
	const limit = get('rate-limit', 'SANDBOX_RATE_LIMIT');
	if (limit !== undefined) faults.rateLimit = parseRateLimit(limit);
	const seed = get('fault-seed', 'SANDBOX_FAULT_SEED');
	if (seed !== undefined) faults.seed = parseNumber(seed, 'fault-seed');
	return faults;
}

/** --mislabel and --answer-format: answers a client must read by their body, not their label. */
function labelFaults(
	get: (flag: string, env: string) => string | undefined,
	mislabel: boolean,
): Partial<FaultOptions> {
	const faults: Partial<FaultOptions> = mislabel ? { mislabel } : {};
	const format = get('answer-format', 'SANDBOX_ANSWER_FORMAT');
	if (format !== undefined && format !== 'json' && format !== 'xml') {
		throw new Error(`answer-format: "${format}" is neither json nor xml`);
	}
	if (format !== undefined) faults.answerFormat = format;
	return faults;
}

/**
 * The accounts given, or the demo account. --credits is the balance of every account given
 * without its own (USER:PASS), and of the demo account when none is given.
 */
function accountsFrom(
	flags: string[] | undefined,
	env: Env,
	get: (flag: string, env: string) => string | undefined,
): Account[] {
	const text = get('credits', 'SANDBOX_CREDITS');
	const credits = text === undefined ? DEMO_ACCOUNT.credits : parseCredits(text, 'credits');
	const accounts = listFrom(flags, env.SANDBOX_ACCOUNTS).map((a) => parseAccount(a, credits));
	return accounts.length ? accounts : [{ ...DEMO_ACCOUNT, credits }];
}

/**
 * --callback-url URL gives every account that URL; USER=URL only that account (a URL itself
 * starts with its scheme, so "USER=" cannot be mistaken for part of it).
 */
function withCallbacks(accounts: Account[], urls: string[], format: string | undefined): Account[] {
	if (format !== undefined && format !== 'json' && format !== 'xml') {
		throw new Error(`callback-format: "${format}" is neither json nor xml`);
	}
	const byUser = new Map<string | undefined, string>();
	for (const text of urls) {
		const m = /^([^:/=]+)=(.+)$/.exec(text);
		byUser.set(m ? m[1] : undefined, m ? m[2] : text);
	}
	for (const user of byUser.keys()) {
		if (user !== undefined && !accounts.some((a) => a.username === user))
			throw new Error(`callback-url: no account "${user}" (give it with --account)`);
	}
	return accounts.map((a) => {
		const url = byUser.get(a.username) ?? byUser.get(undefined);
		if (url === undefined) return a;
		checkCallbackUrl(url);
		return { ...a, callbackUrl: url, ...(format ? { callbackFormat: format } : {}) };
	});
}

function callbackOptionsFrom(
	get: (flag: string, env: string) => string | undefined,
): Partial<CallbackOptions> {
	const options: Partial<CallbackOptions> = {};
	const set = <K extends keyof CallbackOptions>(
		flag: string,
		env: string,
		key: K,
		read: (text: string) => number,
	) => {
		const text = get(flag, env);
		if (text !== undefined) options[key] = read(text) as CallbackOptions[K];
	};
	const whole = (flag: string) => (text: string) => {
		const n = parseNumber(text, flag, 1);
		if (!Number.isInteger(n)) throw new Error(`${flag} must be whole: "${text}"`);
		return n;
	};
	const share = (flag: string) => (text: string) => parseNumber(text, flag, 0, 1);
	set('callback-batch', 'SANDBOX_CALLBACK_BATCH', 'batchSize', whole('callback-batch'));
	set('callback-attempts', 'SANDBOX_CALLBACK_ATTEMPTS', 'maxAttempts', whole('callback-attempts'));
	set('callback-retry', 'SANDBOX_CALLBACK_RETRY', 'retryBaseMs', parseDuration);
	set('callback-timeout', 'SANDBOX_CALLBACK_TIMEOUT', 'timeoutMs', parseDuration);
	const rate = 'callback-duplicate-rate';
	set(rate, 'SANDBOX_CALLBACK_DUPLICATE_RATE', 'duplicateRate', share(rate));
	const reorder = 'callback-reorder-rate';
	set(reorder, 'SANDBOX_CALLBACK_REORDER_RATE', 'reorderRate', share(reorder));
	const delay = 'callback-delay-rate';
	set(delay, 'SANDBOX_CALLBACK_DELAY_RATE', 'delayRate', share(delay));
	set('callback-delay', 'SANDBOX_CALLBACK_DELAY', 'delayMs', parseDuration);
	const after = 'SANDBOX_CALLBACK_DUPLICATE_AFTER';
	set('callback-duplicate-after', after, 'duplicateAfterMs', parseDuration);
	set('callback-spacing', 'SANDBOX_CALLBACK_SPACING', 'spacingMs', parseDuration);
	set('callback-in-flight', 'SANDBOX_CALLBACK_IN_FLIGHT', 'inFlight', whole('callback-in-flight'));
	const burst = 'callback-burst-rate';
	set(burst, 'SANDBOX_CALLBACK_BURST_RATE', 'burstRate', share(burst));
	const copies = 'callback-burst-copies';
	set(copies, 'SANDBOX_CALLBACK_BURST_COPIES', 'burstCopies', whole(copies));
	set('fault-seed', 'SANDBOX_FAULT_SEED', 'seed', (t) => parseNumber(t, 'fault-seed'));
	return options;
}

/** Kept as digits: a JS number would round a 19-digit id. */
function parseFirstBatchId(text: string): string {
	firstBatchId(text); // throws with the reason when it is not 1 to 19 digits
	return text;
}

export interface CliConfig {
	options: SandboxOptions;
	quiet: boolean;
	help: boolean;
}

export function parseCli(argv: string[], env: Env): CliConfig {
	const { values } = parseArgs({
		args: argv,
		options: FLAGS,
		strict: true,
		allowPositionals: false,
	});
	const v = values as Record<string, string | string[] | boolean | undefined>;
	const get = (flag: string, name: string) => (v[flag] as string | undefined) ?? env[name];
	const truthy = (flag: string, name: string) =>
		v[flag] === true || /^(1|true|yes)$/i.test(env[name] ?? '');
	const options = { ...defaultOptions(), port: SANDBOX_PORT };
	options.host = get('host', 'SANDBOX_HOST') ?? options.host;
	const port = get('port', 'SANDBOX_PORT');
	if (port !== undefined) options.port = parseNumber(port, 'port', 0, 65535);
	options.accounts = withCallbacks(
		accountsFrom(v.account as string[] | undefined, env, get),
		listFrom(v['callback-url'] as string[] | undefined, env.SANDBOX_CALLBACK_URL),
		get('callback-format', 'SANDBOX_CALLBACK_FORMAT'),
	);
	options.callbacks = callbackOptionsFrom(get);
	const scale = get('time-scale', 'SANDBOX_TIME_SCALE');
	if (scale !== undefined) options.timeScale = parseNumber(scale, 'time-scale');
	const finalAfter = get('final-after', 'SANDBOX_FINAL_AFTER');
	if (finalAfter !== undefined) options.finalAfterMs = parseDuration(finalAfter);
	options.timeZone = get('time-zone', 'SANDBOX_TIME_ZONE') ?? options.timeZone;
	options.networks = withNetworks(
		listFrom(v.network as string[] | undefined, env.SANDBOX_NETWORKS).map(parseNetwork),
	);
	options.stateFile = get('state-file', 'SANDBOX_STATE_FILE');
	const first = get('first-batch-id', 'SANDBOX_FIRST_BATCH_ID');
	if (first !== undefined) options.firstBatchId = parseFirstBatchId(first);
	options.faults = {
		...faultsFrom(get),
		...labelFaults(get, truthy('mislabel', 'SANDBOX_MISLABEL')),
	};
	options.admin = !(v['no-admin'] === true || /^(0|false|no)$/i.test(env.SANDBOX_ADMIN ?? ''));
	return { options, quiet: truthy('quiet', 'SANDBOX_QUIET'), help: v.help === true };
}
