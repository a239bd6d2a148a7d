/**
 * What one n8n process keeps for Send's records, on the node type's instance (n8n makes one per
 * process): the store's queue, the turns runs of one campaign take, and the batch each request
 * accepted here went out in. Across processes only the record is shared (docs/decisions.md,
 * "Send's record").
 */
import { StoreQueue } from '../../../../shared/deduplicationStore';

/** A run holding a campaign: who, and a promise that resolves when it lets go. */
interface Holder {
	execution: string;
	released: Promise<void>;
}

/**
 * Runs of one campaign in this process take turns: a run that opens a campaign another run here
 * is sending waits for it to end, so that it reads what that run sent. The wait is bounded by the
 * caller (turnOf): a run never waits for ever.
 */
export class Turns {
	private readonly holders = new Map<string, Holder>();

	/** The execution holding the campaign, if a run here holds it. */
	holder(campaign: string): string | undefined {
		return this.holders.get(campaign)?.execution;
	}

	/**
	 * Waits until no run here holds the campaign, then holds it. `waited` says every so often who
	 * it waits for; past `boundMs` it stops waiting: undefined, and the campaign is not held.
	 */
	async take(
		campaign: string,
		execution: string,
		boundMs: number,
		waited: (holder: string, waitedMs: number) => void,
		sleep: (ms: number, signal: AbortSignal) => Promise<void>,
		now: () => number,
	): Promise<(() => void) | undefined> {
		const start = now();
		for (let held = this.holders.get(campaign); held; held = this.holders.get(campaign)) {
			const waitedMs = now() - start;
			if (waitedMs >= boundMs) return undefined;
			waited(held.execution, waitedMs);
			// The slice's timer is cancelled when the holder lets go first.
			const slice = new AbortController();
			await Promise.race([
				held.released.then(() => slice.abort()),
				sleep(Math.min(WAIT_SLICE_MS, boundMs - waitedMs), slice.signal).catch(() => undefined),
			]);
		}
		let release!: () => void;
		const released = new Promise<void>((resolve) => (release = resolve));
		const holder = { execution, released };
		this.holders.set(campaign, holder);
		return () => {
			if (this.holders.get(campaign) === holder) this.holders.delete(campaign);
			release();
		};
	}
}

/** How often a waiting run says so in n8n's log. */
export const WAIT_SLICE_MS = 15_000;

/** How long a run waits for another run of its campaign in this process to end. */
export const TURN_BOUND_MS = 120_000;

let turnBoundMs = TURN_BOUND_MS;

/** The wait's bound now (tests shorten it). */
export function turnBound(): number {
	return turnBoundMs;
}

/** For tests only: a shorter wait for every run until the returned function restores it. */
export function overrideTurnBound(ms: number): () => void {
	const previous = turnBoundMs;
	turnBoundMs = ms;
	return () => {
		turnBoundMs = previous;
	};
}

/** A request accepted in this process: its batch, and the execution that sent it. */
export interface Accepted {
	batchId?: string;
	execution: string;
}

/**
 * The batch of each request accepted in this process, by record and request (positions.ts), so
 * that a run that holds it back says which batch took it. The oldest go first past MAX_ANSWERS.
 */
export class Answers {
	private readonly accepted = new Map<string, Accepted>();

	remember(key: string, answer: Accepted): void {
		this.accepted.delete(key);
		this.accepted.set(key, answer);
		if (this.accepted.size > MAX_ANSWERS) {
			this.accepted.delete(this.accepted.keys().next().value as string);
		}
	}

	of(key: string): Accepted | undefined {
		return this.accepted.get(key);
	}
}

/** Requests whose batch a process remembers: about 30 MB at most. */
const MAX_ANSWERS = 200_000;

export class SendProcess {
	readonly queue = new StoreQueue();
	readonly turns = new Turns();
	readonly answers = new Answers();
}
