/**
 * Accounts, credits and batches: everything the sandbox remembers, in a shape that serialises to
 * the state file as it is. Ids are strings of digits (never JS numbers, which would corrupt them).
 */
import type { CallbackTarget } from './callbackSettings';
import type { ReportStatus } from './numbers';
import type { Encoding } from './parts';

export interface Account {
	username: string;
	password: string;
	credits: number;
	/** Where status callbacks of this account's batches go (sandbox/README.md); none: no callbacks. */
	callbackUrl?: string;
	/** Wire form of those callbacks; JSON when not given. */
	callbackFormat?: 'json' | 'xml';
}

export interface Message {
	msisdn: string;
	gatewaySessionId: string;
	networkId: number;
	/** End of validity, ms since epoch (sandbox clock), after clamping to the network's maximum. */
	validUntil: number;
	/** A status forced through the admin API (e.g. DELETED, UNKNOWN), from `at` on. */
	forced?: { status: ReportStatus; at: number };
}

export interface Batch {
	batchId: string;
	account: string;
	message: string;
	encoding: Encoding;
	parts: number;
	creditsCharged: number;
	/** Sandbox-clock time the batch was accepted. */
	submittedAt: number;
	messages: Message[];
	/** Set when the account had a callback URL at send time: receive_updates was true. */
	callback?: CallbackTarget;
}

export interface StoreSnapshot {
	version: 1;
	clockMs: number;
	nextBatchId: string;
	nextSessionId: string;
	accounts: Account[];
	batches: Batch[];
}

/**
 * Ids start just above 2^53 and go up by 2, so every one is odd and above 2^53: none of them is
 * representable as a double, and JSON.parse corrupts each one (…993 becomes …992).
 */
export const FIRST_BATCH_ID = 9007199254740993n;
export const FIRST_SESSION_ID = 18014398509481985n; // 2^54 + 1
const ID_STEP = 2n;
/** docs/interface.md 2.2: a batch_id has up to 19 digits. */
const MAX_BATCH_ID = 10n ** 19n - 1n;

/**
 * The first batch id from an option: 1 to 19 digits, as a string or a bigint, never a JS number
 * (which would round a 19-digit id before the sandbox sees it).
 */
export function firstBatchId(value: string | bigint | undefined): bigint {
	if (value === undefined) return FIRST_BATCH_ID;
	const text = String(value);
	if (typeof (value as unknown) === 'number' || !/^\d{1,19}$/.test(text) || BigInt(text) === 0n) {
		throw new Error(`first batch id: "${text}" is not an integer of 1 to 19 digits above 0`);
	}
	return BigInt(text);
}

export class Store {
	readonly accounts = new Map<string, Account>();
	readonly batches = new Map<string, Batch>();
	private nextBatchId: bigint;
	private nextSessionId = FIRST_SESSION_ID;

	constructor(accounts: Account[], firstBatch: string | bigint | undefined = undefined) {
		for (const a of accounts) this.accounts.set(a.username, { ...a });
		this.nextBatchId = firstBatchId(firstBatch);
	}

	/** False once the ids run past 19 digits (only with a first id near the top). */
	hasBatchId(): boolean {
		return this.nextBatchId <= MAX_BATCH_ID;
	}

	takeBatchId(): string {
		const id = this.nextBatchId;
		this.nextBatchId += ID_STEP;
		return id.toString();
	}

	takeSessionId(): string {
		const id = this.nextSessionId;
		this.nextSessionId += ID_STEP;
		return id.toString();
	}

	/** The batch, only when it belongs to this account: another account's batch does not exist for it. */
	batchOf(account: string, batchId: string): Batch | undefined {
		const batch = this.batches.get(batchId);
		return batch && batch.account === account ? batch : undefined;
	}

	findMessage(gatewaySessionId: string): { batch: Batch; message: Message } | undefined {
		for (const batch of this.batches.values()) {
			const message = batch.messages.find((m) => m.gatewaySessionId === gatewaySessionId);
			if (message) return { batch, message };
		}
		return undefined;
	}

	snapshot(clockMs: number): StoreSnapshot {
		return {
			version: 1,
			clockMs,
			nextBatchId: this.nextBatchId.toString(),
			nextSessionId: this.nextSessionId.toString(),
			accounts: [...this.accounts.values()],
			batches: [...this.batches.values()],
		};
	}

	/** Restores a snapshot; accounts given on the command line but absent from it are kept. */
	restore(snapshot: StoreSnapshot): void {
		for (const a of snapshot.accounts) this.accounts.set(a.username, { ...a });
		this.batches.clear();
		for (const b of snapshot.batches) this.batches.set(b.batchId, b);
		this.nextBatchId = BigInt(snapshot.nextBatchId);
		this.nextSessionId = BigInt(snapshot.nextSessionId);
	}
}
