/**
 * The sandbox's state and test controls, apart from HTTP: the store, the clock, the faults, the
 * request log and the state file. The server and the admin view both work through this.
 */
import { reportFields } from './api';
import { Callbacks } from './callbacks';
import { blankPassword, checkCallbackUrl } from './callbackSettings';
import { assertTimeZone } from './dates';
import { Clock } from './clock';
import { Faults, type FaultKind, type FaultOptions } from './faults';
import { stateAt } from './lifecycle';
import { REPORT_STATUSES, type ReportStatus } from './numbers';
import type { SandboxOptions } from './options';
import { readState, StateWriter } from './statefile';
import { Store, type Account, type Batch } from './store';
import type { ApiContext } from './api';

export interface RequestLogEntry {
	/** Real time the request arrived. */
	at: string;
	method: string;
	path: string;
	query: string;
	account?: string;
	accept?: string;
	contentType?: string;
	/** Form fields of a send, as received. */
	form?: Record<string, string>;
	/** HTTP status answered, or how the connection was dropped. */
	outcome: number | 'dropped-before' | 'dropped-after' | 'pending';
	fault?: FaultKind | 'rateLimit';
}

export interface ReceivedMessage {
	msisdn: string;
	gateway_session_id: string;
	network_id: number;
	status: ReportStatus;
	valid_until: string;
	final_at?: string;
}

export interface ReceivedBatch {
	batch_id: string;
	account: string;
	message: string;
	encoding: string;
	parts: number;
	credits_charged: number;
	submitted_at: string;
	messages: ReceivedMessage[];
}

/** What the sandbox accepted; `destinations` counts acceptances per MSISDN ("exactly once"). */
export interface Received {
	batches: ReceivedBatch[];
	destinations: Array<{ msisdn: string; accepted: number; batch_ids: string[] }>;
}

const REQUEST_LOG_SIZE = 1000;

/** An account as views show it: never its password (a callback URL's is blanked too). */
export interface AccountView {
	username: string;
	credits: number;
	callback_url?: string;
	callback_format?: 'json' | 'xml';
}

export type AccountChange = Partial<Omit<Account, 'callbackUrl'>> & {
	username: string;
	/** A URL sets it, null removes it, undefined keeps it. */
	callbackUrl?: string | null;
};

/** The callback settings an account keeps after a change. */
function callbackOf(
	change: AccountChange,
	existing: Account | undefined,
): Pick<Account, 'callbackUrl' | 'callbackFormat'> {
	const url = change.callbackUrl === undefined ? existing?.callbackUrl : change.callbackUrl;
	const format = change.callbackFormat ?? existing?.callbackFormat;
	if (format !== undefined && format !== 'json' && format !== 'xml')
		throw new Error('callback_format must be "json" or "xml"');
	if (url === null || url === undefined) return format ? { callbackFormat: format } : {};
	checkCallbackUrl(url);
	return { callbackUrl: url, ...(format ? { callbackFormat: format } : {}) };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** How many times each destination was accepted, and in which batches: "exactly once" at a glance. */
function countDestinations(batches: Batch[]): Received['destinations'] {
	const counts = new Map<string, Received['destinations'][number]>();
	for (const b of batches) {
		for (const m of b.messages) {
			const c = counts.get(m.msisdn) ?? { msisdn: m.msisdn, accepted: 0, batch_ids: [] };
			c.accepted += 1;
			c.batch_ids.push(b.batchId);
			counts.set(m.msisdn, c);
		}
	}
	return [...counts.values()];
}

export class SandboxCore {
	readonly store: Store;
	readonly clock: Clock;
	readonly faults: Faults;
	readonly callbacks: Callbacks;
	private readonly log: RequestLogEntry[] = [];
	private readonly writer?: StateWriter;

	private constructor(
		readonly options: SandboxOptions,
		clockStart: number,
	) {
		this.store = new Store(options.accounts, options.firstBatchId);
		this.clock = new Clock(options.timeScale, clockStart);
		this.faults = new Faults(options.faults);
		this.callbacks = new Callbacks(
			{
				now: () => this.clock.now(),
				finalAfterMs: options.finalAfterMs,
				reportFields: (batch, index, format) =>
					reportFields(batch, batch.messages[index], format, this.context()),
				batch: (batchId) => this.store.batches.get(batchId),
			},
			options.callbacks,
		);
		if (options.stateFile) {
			this.writer = new StateWriter(options.stateFile, () => this.store.snapshot(this.clock.now()));
		}
	}

	static async create(options: SandboxOptions): Promise<SandboxCore> {
		assertTimeZone(options.timeZone);
		for (const a of options.accounts) if (a.callbackUrl) checkCallbackUrl(a.callbackUrl);
		const saved = options.stateFile ? await readState(options.stateFile) : undefined;
		// Resume the clock where it stopped, so no message goes back from final to ENROUTE.
		const start = Math.max(options.startTime ?? Date.now(), saved?.clockMs ?? 0);
		const core = new SandboxCore(options, start);
		if (saved) core.store.restore(saved);
		// After a restart each watched message is called back once more with its current status:
		// what was already acknowledged is not kept, and at least once allows a repeat.
		for (const batch of core.store.batches.values()) core.callbacks.watch(batch);
		await core.persist();
		return core;
	}

	context(): ApiContext {
		const { timeZone, networks, finalAfterMs } = this.options;
		return { store: this.store, now: this.clock.now(), timeZone, networks, finalAfterMs };
	}

	/** Resolves once the current state is in the state file (at once without one). */
	persist(): Promise<void> {
		return this.writer ? this.writer.save() : Promise.resolve();
	}

	record(entry: RequestLogEntry): RequestLogEntry {
		this.log.push(entry);
		if (this.log.length > REQUEST_LOG_SIZE) this.log.shift();
		return entry;
	}

	requests(): RequestLogEntry[] {
		return this.log.map((e) => ({ ...e }));
	}

	received(account?: string): Received {
		const batches = [...this.store.batches.values()].filter(
			(b) => !account || b.account === account,
		);
		const now = this.clock.now();
		return {
			batches: batches.map((b) => this.receivedBatch(b, now)),
			destinations: countDestinations(batches),
		};
	}

	private receivedBatch(b: Batch, now: number): ReceivedBatch {
		const messages = b.messages.map((m): ReceivedMessage => {
			const state = stateAt(b, m, now, this.options.finalAfterMs);
			return {
				msisdn: m.msisdn,
				gateway_session_id: m.gatewaySessionId,
				network_id: m.networkId,
				status: state.status,
				valid_until: iso(m.validUntil),
				...(state.finalAt === undefined ? {} : { final_at: iso(state.finalAt) }),
			};
		});
		return {
			batch_id: b.batchId,
			account: b.account,
			message: b.message,
			encoding: b.encoding,
			parts: b.parts,
			credits_charged: b.creditsCharged,
			submitted_at: iso(b.submittedAt),
			messages,
		};
	}

	accounts(): AccountView[] {
		return [...this.store.accounts.values()].map(
			({ username, credits, callbackUrl, callbackFormat }) => ({
				username,
				credits,
				...(callbackUrl
					? { callback_url: blankPassword(callbackUrl), callback_format: callbackFormat ?? 'json' }
					: {}),
			}),
		);
	}

	/** Moves the clock forward and calls back what changed meanwhile. */
	advance(ms: number): void {
		this.clock.advance(ms);
		this.callbacks.scan();
	}

	setNow(ms: number): void {
		this.clock.set(ms);
		this.callbacks.scan();
	}

	/** Adds an account or changes its password, credits and/or callback URL (null removes it). */
	async upsertAccount(change: AccountChange): Promise<void> {
		// Basic credentials split at the first colon, so a username cannot hold one.
		if (!change.username || change.username.includes(':'))
			throw new Error('a username is not empty and has no colon');
		const existing = this.store.accounts.get(change.username);
		const password = change.password ?? existing?.password;
		if (password === undefined) throw new Error('a new account needs a password');
		const credits = change.credits ?? existing?.credits ?? 0;
		if (!Number.isInteger(credits) || credits < 0)
			throw new Error('credits must be a whole number, 0 or more');
		const account: Account = { username: change.username, password, credits };
		Object.assign(account, callbackOf(change, existing));
		this.store.accounts.set(change.username, account);
		await this.persist();
	}

	/** Forces the report of one message (for statuses no test number produces, e.g. DELETED). */
	async forceStatus(gatewaySessionId: string, status: ReportStatus): Promise<void> {
		if (!REPORT_STATUSES.includes(status)) throw new Error(`unknown status ${status}`);
		const found = this.store.findMessage(gatewaySessionId);
		if (!found) throw new Error(`no message with gateway_session_id ${gatewaySessionId}`);
		found.message.forced = { status, at: this.clock.now() };
		this.callbacks.watch(found.batch);
		await this.persist();
	}

	setFaults(options: Partial<FaultOptions>): void {
		this.faults.set(options);
	}
}
