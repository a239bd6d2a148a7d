/**
 * Fault injection for the /api paths, off by default. 500s, 503s, 429s and "dropped before" happen before
 * the request is processed (nothing charged, nothing stored); "dropped after" closes the connection
 * once the request was processed, so a client cannot know whether its send was taken: the case
 * where it must not send again. `mislabel` and `answerFormat` are not drawn: while set, they shape
 * every answer, for clients that must read a body by its content rather than its label.
 */

import { seededRandom } from './random';

export type FaultKind = 'error500' | 'error503' | 'error429' | 'dropBefore' | 'dropAfter';
export const FAULT_KINDS: readonly FaultKind[] = [
	'dropBefore',
	'error500',
	'error503',
	'error429',
	'dropAfter',
];
/** A queued place with no fault: queue N of them, then a fault, to fault the (N+1)th request. */
export const NO_FAULT = 'none';
export type QueuedFault = FaultKind | typeof NO_FAULT;

export interface FaultOptions {
	/** Added before every /api response, in real milliseconds. */
	latencyMs: number;
	/** Shares (0 to 1) of /api requests that meet each fault; they are drawn one at a time. */
	error500Rate: number;
	/** 503 with Retry-After: the other answer (with 429) a client may safely retry. */
	error503Rate: number;
	error429Rate: number;
	dropBeforeRate: number;
	dropAfterRate: number;
	/** Retry-After (seconds) sent with injected 429s and 503s. */
	retryAfterSeconds: number;
	/** At most `limit` /api requests per account per `windowMs` of real time; beyond it, 429. */
	rateLimit?: { limit: number; windowMs: number };
	/** Seed of the random draws, so a run with shares can be repeated. */
	seed: number;
	/** Label every JSON or XML answer text/plain: a client must read the body, not the label. */
	mislabel: boolean;
	/** Answer in this format whatever Accept asks, as a gateway that ignores Accept does. */
	answerFormat?: 'json' | 'xml';
}

export const NO_FAULTS: FaultOptions = {
	latencyMs: 0,
	error500Rate: 0,
	error503Rate: 0,
	error429Rate: 0,
	dropBeforeRate: 0,
	dropAfterRate: 0,
	retryAfterSeconds: 1,
	rateLimit: undefined,
	seed: 1,
	mislabel: false,
	answerFormat: undefined,
};

const RATES = [
	'error500Rate',
	'error503Rate',
	'error429Rate',
	'dropBeforeRate',
	'dropAfterRate',
] as const;

/** Refuses settings that would silently do something else than asked (a share of 2, a typo). */
function checkFaults(options: FaultOptions): void {
	const known = new Set(Object.keys(NO_FAULTS));
	const unknown = Object.keys(options).filter((k) => !known.has(k));
	if (unknown.length) throw new Error(`unknown fault setting(s): ${unknown.join(', ')}`);
	for (const key of RATES) {
		const share = options[key];
		if (typeof share !== 'number' || !(share >= 0 && share <= 1))
			throw new Error(`${key} must be from 0 to 1`);
	}
	const total = RATES.reduce((sum, key) => sum + options[key], 0);
	if (total > 1) throw new Error(`the fault shares add up to ${total}, more than 1`);
	if (!(options.latencyMs >= 0) || !(options.retryAfterSeconds >= 0)) {
		throw new Error('latencyMs and retryAfterSeconds must be 0 or more');
	}
	const limit = options.rateLimit;
	if (limit && !(limit.limit >= 1 && limit.windowMs > 0)) {
		throw new Error('rateLimit needs limit >= 1 and windowMs > 0');
	}
	if (typeof options.mislabel !== 'boolean') throw new Error('mislabel must be true or false');
	if (![undefined, 'json', 'xml'].includes(options.answerFormat)) {
		throw new Error('answerFormat must be "json" or "xml"');
	}
}

export class Faults {
	private options: FaultOptions = { ...NO_FAULTS };
	private random = seededRandom(NO_FAULTS.seed);
	private queued: QueuedFault[] = [];
	private windows = new Map<string, { start: number; count: number }>();

	constructor(options: Partial<FaultOptions> = {}) {
		this.set(options);
	}

	/** Replaces the whole configuration: what is not given is off. Clears queued faults. */
	set(options: Partial<FaultOptions>): void {
		const next = { ...NO_FAULTS, ...options };
		checkFaults(next);
		this.options = next;
		this.random = seededRandom(this.options.seed);
		this.queued = [];
		this.windows.clear();
	}

	current(): FaultOptions & { queued: QueuedFault[] } {
		return { ...this.options, queued: [...this.queued] };
	}

	/** Faults for the next /api requests, in order, before any drawn by share. */
	queue(kinds: QueuedFault[]): void {
		this.queued.push(...kinds);
	}

	/** The nth /api request after those already queued meets `kind`; the ones before it pass. */
	queueAt(n: number, kind: QueuedFault): void {
		this.queue([...Array<QueuedFault>(n - 1).fill('none'), kind]);
	}

	get latencyMs(): number {
		return this.options.latencyMs;
	}

	get retryAfterSeconds(): number {
		return this.options.retryAfterSeconds;
	}

	get mislabel(): boolean {
		return this.options.mislabel;
	}

	get answerFormat(): 'json' | 'xml' | undefined {
		return this.options.answerFormat;
	}

	draw(): FaultKind | undefined {
		const next = this.queued.shift();
		if (next) return next === NO_FAULT ? undefined : next;
		const shares: Array<[FaultKind, number]> = [
			['dropBefore', this.options.dropBeforeRate],
			['error500', this.options.error500Rate],
			['error503', this.options.error503Rate],
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
