/**
 * Fault injection for the /api paths, off by default. 500s, 429s and "dropped before" happen before
 * the request is processed (nothing charged, nothing stored); "dropped after" closes the connection
 * once the request was processed, so a client cannot know whether its send was taken: the case
 * where it must not send again.
 */

export type FaultKind = 'error500' | 'error429' | 'dropBefore' | 'dropAfter';
export const FAULT_KINDS: readonly FaultKind[] = [
	'dropBefore',
	'error500',
	'error429',
	'dropAfter',
];

export interface FaultOptions {
	/** Added before every /api response, in real milliseconds. */
	latencyMs: number;
	/** Shares (0 to 1) of /api requests that meet each fault; they are drawn one at a time. */
	error500Rate: number;
	error429Rate: number;
	dropBeforeRate: number;
	dropAfterRate: number;
	/** Retry-After (seconds) sent with injected 429s. */
	retryAfterSeconds: number;
	/** At most `limit` /api requests per account per `windowMs` of real time; beyond it, 429. */
	rateLimit?: { limit: number; windowMs: number };
	/** Seed of the random draws, so a run with shares can be repeated. */
	seed: number;
}

export const NO_FAULTS: FaultOptions = {
	latencyMs: 0,
	error500Rate: 0,
	error429Rate: 0,
	dropBeforeRate: 0,
	dropAfterRate: 0,
	retryAfterSeconds: 1,
	rateLimit: undefined,
	seed: 1,
};

/** mulberry32: small, seeded, good enough to pick faults. */
function seededRandom(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

export class Faults {
	private options: FaultOptions = { ...NO_FAULTS };
	private random = seededRandom(NO_FAULTS.seed);
	private queued: FaultKind[] = [];
	private windows = new Map<string, { start: number; count: number }>();

	constructor(options: Partial<FaultOptions> = {}) {
		this.set(options);
	}

	/** Replaces the whole configuration: what is not given is off. Clears queued faults. */
	set(options: Partial<FaultOptions>): void {
		this.options = { ...NO_FAULTS, ...options };
		this.random = seededRandom(this.options.seed);
		this.queued = [];
		this.windows.clear();
	}

	current(): FaultOptions & { queued: FaultKind[] } {
		return { ...this.options, queued: [...this.queued] };
	}

	/** Faults for the next /api requests, in order, before any drawn by share. */
	queue(kinds: FaultKind[]): void {
		this.queued.push(...kinds);
	}

	get latencyMs(): number {
		return this.options.latencyMs;
	}

	get retryAfterSeconds(): number {
		return this.options.retryAfterSeconds;
	}

	draw(): FaultKind | undefined {
		const next = this.queued.shift();
		if (next) return next;
		const shares: Array<[FaultKind, number]> = [
			['dropBefore', this.options.dropBeforeRate],
			['error500', this.options.error500Rate],
			['error429', this.options.error429Rate],
			['dropAfter', this.options.dropAfterRate],
		];
		if (shares.every(([, share]) => share <= 0)) return undefined;
		let r = this.random();
		for (const [kind, share] of shares) {
			if (r < share) return kind;
			r -= share;
		}
		return undefined;
	}

	/** Seconds to wait when this request is over the rate limit, else undefined (and it counts). */
	overLimit(key: string, realNow: number): number | undefined {
		const limit = this.options.rateLimit;
		if (!limit) return undefined;
		let window = this.windows.get(key);
		if (!window || realNow - window.start >= limit.windowMs) {
			window = { start: realNow, count: 0 };
			this.windows.set(key, window);
		}
		if (window.count < limit.limit) {
			window.count += 1;
			return undefined;
		}
		return Math.max(1, Math.ceil((window.start + limit.windowMs - realNow) / 1000));
	}
}
