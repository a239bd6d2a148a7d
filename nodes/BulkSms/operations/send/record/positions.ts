/**
 * A campaign's plan: the requests of one run in the order it sends them, each named by a hash of
 * every request up to it, so that a fact written for request i of one run holds for another run
 * only when their first i requests are the same (the same texts to the same numbers, in order).
 * Hashes are worked out when first needed and cached per checkpoint and for the requests near the
 * run's progress: a campaign of a million requests keeps thousands of them, not a million.
 */
import { digest, STEP } from './facts';

/** What the record knows of a request: its text and its numbers. */
export interface PlannedRequest {
	text: string;
	numbers: readonly string[];
}

const START = 'start';

export class Positions {
	/** prefix(j · STEP), by j. */
	private readonly checkpoints = new Map<number, string>([[0, START]]);
	/** prefix(i + 1), for the requests looked at lately. */
	private readonly recent = new Map<number, string>();

	constructor(readonly requests: readonly PlannedRequest[]) {}

	get length(): number {
		return this.requests.length;
	}

	/** The name of request i: the hash of requests 0 to i. */
	hash(i: number): string {
		return this.prefix(i + 1);
	}

	/** The hash of the first `count` requests (a checkpoint's name when `count` is one). */
	prefix(count: number): string {
		if (count === 0) return START;
		const cached = this.recent.get(count - 1) ?? this.checkpoints.get(count / STEP);
		if (cached !== undefined) return cached;
		const base = Math.floor((count - 1) / STEP) * STEP;
		let h = this.checkpointHash(base);
		for (let i = base; i < count; i++) {
			h = this.recent.get(i) ?? this.next(h, i);
			this.recent.set(i, h);
			if ((i + 1) % STEP === 0) this.checkpoints.set((i + 1) / STEP, h);
		}
		return h;
	}

	/** Requests before `position` are no longer looked at request by request. */
	forgetBefore(position: number): void {
		for (const i of this.recent.keys()) if (i < position) this.recent.delete(i);
	}

	private checkpointHash(base: number): string {
		const known = this.checkpoints.get(base / STEP);
		if (known !== undefined) return known;
		let j = base / STEP;
		while (!this.checkpoints.has(j)) j--;
		let h = this.checkpoints.get(j)!;
		for (let i = j * STEP; i < base; i++) {
			h = this.next(h, i);
			if ((i + 1) % STEP === 0) this.checkpoints.set((i + 1) / STEP, h);
		}
		return h;
	}

	private next(previous: string, i: number): string {
		const { text, numbers } = this.requests[i];
		return digest(`${previous}\n${text}\n${numbers.join(',')}`);
	}
}
