/** Options of a sandbox and their defaults; the CLI and tests both start from these. */
import type { CallbackOptions } from './callbackSettings';
import type { FaultOptions } from './faults';
import { DEFAULT_NETWORKS, type NetworkRule } from './numbers';
import type { Account } from './store';

export interface SandboxOptions {
	/** Interface to bind; 127.0.0.1 so the sandbox is never reachable from elsewhere by default. */
	host: string;
	/** 0 picks a free port (the default for startSandbox; the commands take SANDBOX_PORT). */
	port: number;
	accounts: Account[];
	/** How many times faster than real time the sandbox clock runs; 0 freezes it (tests). */
	timeScale: number;
	/** Sandbox time from send to the final state for test numbers that finish (see numbers.ts). */
	finalAfterMs: number;
	/** Zone of validity_period and delivery_date: 'UTC', '+02:00', or an IANA name. */
	timeZone: string;
	networks: NetworkRule[];
	/** When set, accounts, credits and batches are kept in this file across restarts. */
	stateFile?: string;
	faults: Partial<FaultOptions>;
	/** Status callbacks: grouping, retries, timeouts and their faults (callbackSettings.ts). */
	callbacks?: Partial<CallbackOptions>;
	/** Serve /_sandbox/* (unauthenticated admin and test controls). */
	admin: boolean;
	/**
	 * First batch_id given out, 1 to 19 digits as a string or bigint (never a JS number); default
	 * 9007199254740993 (2^53 + 1). A state file that already holds a sequence wins.
	 */
	firstBatchId?: string | bigint;
	/** Start of the sandbox clock, ms since epoch; default now. */
	startTime?: number;
	/** Receives one line per request (the CLI prints them); silent by default. */
	log?: (line: string) => void;
}

/**
 * Where `npm run sandbox` and `npm run editor` start the sandbox: one address to put in the n8n
 * credential and to point `npm run sandbox:callback-url` at, whichever started it.
 */
export const SANDBOX_PORT = 8555;

export const DEMO_ACCOUNT: Account = { username: 'demo', password: 'demo-password', credits: 1000 };

export function defaultOptions(): SandboxOptions {
	return {
		host: '127.0.0.1',
		port: 0,
		accounts: [{ ...DEMO_ACCOUNT }],
		timeScale: 1,
		finalAfterMs: 5000,
		timeZone: 'UTC',
		networks: [...DEFAULT_NETWORKS],
		faults: {},
		admin: true,
	};
}
