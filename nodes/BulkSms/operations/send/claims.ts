/**
 * Claims in the record before sending, a window of requests at a time (record.ts). A request goes
 * out only once its numbers are claimed; numbers claimed before (by an earlier run) are held back,
 * and the record says whether the service accepted them then or their outcome is unknown.
 * n8n reads and rewrites the whole record on every call, in n8n's own process: one call claims a
 * whole window and carries the accepted marks of the answers that came in meanwhile. The next
 * window is claimed while this one is sent, and is sized so that n8n spends about a twentieth of
 * the sending time on the record: twenty times the requests answered during the last call, and at
 * most a fiftieth of the run's requests. A crash leaves at most two windows' numbers in doubt.
 */
import type { SendRecord } from './record';
import { acceptedKey, claimKey } from './recordKeys';

/** The numbers of one request, and the send (campaign and text) they get. */
export interface RequestNumbers {
	send: string;
	numbers: readonly string[];
}

/** What the record is told about one number of a request. */
export interface NumberEntry {
	msisdn: string;
	claim: string;
	accepted: string;
}

/** Built when needed, not kept: a campaign of 100,000 numbers would hold 200,000 more strings. */
export function entriesOf({ send, numbers }: RequestNumbers): NumberEntry[] {
	return numbers.map((msisdn) => ({
		msisdn,
		claim: claimKey(send, msisdn),
		accepted: acceptedKey(send, msisdn),
	}));
}

/** Numbers of a window that an earlier run claimed: true when the service accepted them then. */
export type Earlier = ReadonlyMap<string, boolean>;

/** Requests a window holds per request answered during the last call (the record's cost: 1/20). */
const WINDOW_PER_ANSWER = 20;
/** The most requests one window claims, and the most numbers (a combined send has 1,000 a request). */
const MAX_WINDOW_REQUESTS = 2_000;
const MAX_WINDOW_NUMBERS = 20_000;
/**
 * A run's requests are claimed in at least this many windows, so that a crash leaves a few
 * hundredths of a campaign in doubt, not a third of it when the service answers fast.
 */
const MIN_WINDOWS = 50;

export class ClaimWindows {
	/** Per request, in queue order: its window's numbers that an earlier run claimed. */
	private readonly windowOf: Array<Promise<Earlier>> = [];
	private next = 0;
	private newestWindow = 0;
	private size: number;
	private readonly largest: number;
	/** Numbers in the window claimed last: the marks written on their own wait for as many. */
	private lastWindowNumbers = 0;
	private answered = 0;
	private accepted: string[] = [];
	private readonly writes: Array<Promise<unknown>> = [];
	/** Writes that failed after their requests were answered: the run goes on, n8n's log says why. */
	private readonly failed: string[] = [];

	constructor(
		private readonly record: SendRecord,
		/** The numbers of each request, in the order the requests go out. */
		private readonly requests: readonly RequestNumbers[],
		private readonly concurrency: number,
	) {
		this.size = concurrency;
		this.largest = Math.min(
			MAX_WINDOW_REQUESTS,
			Math.max(concurrency, Math.ceil(requests.length / MIN_WINDOWS)),
		);
	}

	/** The numbers of request `index` that an earlier run claimed; claims the request's window first. */
	async earlier(index: number): Promise<Earlier> {
		while (this.windowOf[index] === undefined) this.claimNextWindow();
		// The senders have reached the newest window: the one after it is claimed meanwhile.
		if (index >= this.newestWindow) this.claimNextWindow();
		return await this.windowOf[index];
	}

	/** The service accepted these numbers: marked in the record with the next call. */
	noteAccepted(entries: readonly NumberEntry[]): void {
		this.answered++;
		this.accepted.push(...entries.map((entry) => entry.accepted));
		// Once every window is claimed, the marks are written on their own, a window's worth at a time.
		if (this.next >= this.requests.length && this.accepted.length >= this.lastWindowNumbers) {
			this.track(this.record.claim([], this.takeAccepted()));
		}
	}

	/** A request answered without being accepted (the window sizes follow the answers). */
	noteAnswered(): void {
		this.answered++;
	}

	/** Gives back the claims of numbers the service certainly did not take. */
	release(entries: readonly NumberEntry[]): void {
		if (entries.length > 0) this.track(this.record.release(entries.map((entry) => entry.claim)));
	}

	/**
	 * Claims of requests that never went out (the run stopped first) are given back, then the
	 * record's end of run, with the accepted marks still waiting. Never throws: what could not be
	 * written is returned, in words, for n8n's log.
	 */
	async finish(settled: ReadonlySet<number>, reachedEveryone: boolean): Promise<string[]> {
		const unsent: NumberEntry[] = [];
		for (let index = 0; index < this.next; index++) {
			if (settled.has(index)) continue;
			// A window whose call failed left nothing in the record; an earlier run's claims stay.
			const earlier = await this.windowOf[index].catch(() => undefined);
			if (earlier)
				unsent.push(...entriesOf(this.requests[index]).filter((e) => !earlier.has(e.claim)));
		}
		this.release(unsent);
		await Promise.all(this.writes);
		this.track(this.record.finish(this.takeAccepted(), reachedEveryone));
		await Promise.all(this.writes);
		return this.failed;
	}

	private claimNextWindow(): void {
		if (this.next >= this.requests.length) return;
		const start = this.next;
		let end = start;
		let numbers = 0;
		while (end < this.requests.length && end - start < this.size && numbers < MAX_WINDOW_NUMBERS) {
			numbers += this.requests[end].numbers.length;
			end++;
		}
		this.next = end;
		this.newestWindow = start;
		this.lastWindowNumbers = numbers;
		const answeredBefore = this.answered;
		const window = this.requests.slice(start, end).flatMap(entriesOf);
		const claimed = this.claimWindow(window).finally(() => {
			const answeredDuring = this.answered - answeredBefore;
			const wanted = WINDOW_PER_ANSWER * answeredDuring;
			this.size = Math.min(this.largest, Math.max(this.concurrency, wanted));
		});
		// A window the run never reaches (it stopped) must not leave its failure unhandled.
		claimed.catch(() => undefined);
		for (let index = start; index < end; index++) this.windowOf[index] = claimed;
	}

	private async claimWindow(entries: readonly NumberEntry[]): Promise<Earlier> {
		const claims = entries.map((entry) => entry.claim);
		const before = await this.record.claim(claims, this.takeAccepted());
		const held = entries.filter((entry) => before.has(entry.claim));
		if (held.length === 0) return new Map();
		const accepted = await this.record.acceptedAmong(held.map((entry) => entry.accepted));
		return new Map(held.map((entry) => [entry.claim, accepted.has(entry.accepted)]));
	}

	private takeAccepted(): string[] {
		const taken = this.accepted;
		this.accepted = [];
		return taken;
	}

	private track(write: Promise<unknown>): void {
		this.writes.push(write.catch((error: Error) => this.failed.push(error.message)));
	}
}
