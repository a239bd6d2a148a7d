/**
 * Send's record of what it handed to the service, kept in n8n's deduplication store of this Send
 * node (scope 'node': one record per workflow and node, in n8n's own database, written at once,
 * shared by main and workers, kept across restarts and crashes). n8n gives a community node no
 * other store that it writes during a run (docs/decisions.md, "The campaign record").
 *
 * The store answers one question, "seen before?", for each value it is given, and records the
 * new ones (hashed: nothing can be read back). So the record is made of facts that are there or
 * not (the values are built in recordKeys.ts):
 *   claim    a number and a text of a campaign, handed to the service or about to be: claimed
 *            before its request goes out, given back when the service certainly did not take it
 *   accepted the service accepted that number and text
 *   used     the record was used in that hour (to forget an unfinished campaign, below)
 *
 * n8n reads and rewrites the whole record on every call, without a lock: the calls of one n8n
 * process take turns (RecordTurns), and a run groups its claims into windows (claims.ts).
 *
 * Forgetting, the rule the README states: a run in production (a trigger, a schedule, a webhook,
 * `n8n execute`) that reached every number it was given ends its campaign, and the record is
 * emptied (or, when it holds another campaign, the run's own values taken out if that is cheap:
 * TAKE_BACK_COMPARISONS); an unfinished campaign is forgotten by the first run more than Resume
 * Within hours after the record was last used. Editor runs and Retries never end a campaign, and
 * a Retry never forgets one, so that running a step again or retrying twice sends nothing twice.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { USED, usedKey } from './recordKeys';

/** Entries a record keeps (two per number sent), the oldest dropped first by n8n. */
export const RECORD_ENTRIES = 1_000_000;

const OPTIONS = { mode: 'entries' as const, maxEntries: RECORD_ENTRIES };

type Store = IExecuteFunctions['helpers'];

/**
 * One n8n process's queue per record, so that two executions of the same Send node in one
 * process never read and write the record at the same time (n8n's store would let one write
 * undo the other's). It lives in the node type's instance, which n8n makes once per process.
 */
export class RecordTurns {
	private readonly last = new Map<string, Promise<unknown>>();

	async inTurn<T>(record: string, call: () => Promise<T>): Promise<T> {
		const previous = this.last.get(record) ?? Promise.resolve();
		const turn = previous.catch(() => undefined).then(call);
		this.last.set(record, turn);
		try {
			return await turn;
		} finally {
			if (this.last.get(record) === turn) this.last.delete(record);
		}
	}
}

export interface RecordPolicy {
	/** Hours after its last use that an unfinished campaign is resumed rather than forgotten. */
	resumeWithinHours: number;
	/** A Retry resumes whatever the record holds, however old. */
	retry: boolean;
	/** Whether a run that reached everyone ends the campaign (not in the editor, not a Retry). */
	endsCampaign: boolean;
}

/**
 * What a run knows the record holds (its claims, accepted marks and the hour marks it saw), so that
 * at its end it can tell whether the record holds anything else. The values themselves are kept up
 * to a bound, so that a small campaign can take back its own when another is in the record too.
 */
class Known {
	private readonly marks = new Set<string>();
	private values: Set<string> | undefined = new Set();
	private uncounted = 0;

	get size(): number {
		return this.marks.size + (this.values?.size ?? 0) + this.uncounted;
	}

	/** The claims and accepted marks, unless there were too many to keep. */
	get listed(): string[] | undefined {
		return this.values && [...this.values];
	}

	add(values: readonly string[]): void {
		for (const value of values) {
			if (value.startsWith(USED)) this.marks.add(value);
			else if (this.values) this.values.add(value);
			else this.uncounted++;
		}
		if (this.values && this.values.size > LISTED) {
			this.uncounted = this.values.size;
			this.values = undefined;
		}
	}

	remove(values: readonly string[]): void {
		for (const value of values) {
			if (!this.values) this.uncounted--;
			else this.values.delete(value);
		}
	}
}

/** Values a run keeps to take back its own; beyond this, it only counts them. */
const LISTED = 10_000;

/**
 * n8n's removeProcessed searches the whole record for each value it takes back: its values times
 * the record's entries, compared one by one. Past this many (about a second of n8n's CPU), a run
 * leaves its campaign to Resume Within rather than stall n8n: taking back 1,000 numbers from a
 * record of 1,000,000 entries took 19 s (docs/benchmarks.md, "Send's record").
 */
const TAKE_BACK_COMPARISONS = 100_000_000;

export class SendRecord {
	private readonly known = new Known();
	private usedHour = -1;

	private constructor(
		private readonly store: Store,
		private readonly turns: RecordTurns,
		private readonly id: string,
		private readonly policy: RecordPolicy,
	) {}

	static async open(
		context: IExecuteFunctions,
		turns: RecordTurns,
		policy: RecordPolicy,
	): Promise<SendRecord> {
		const id = `${context.getWorkflow().id ?? ''} ${context.getNode().id}`;
		const record = new SendRecord(context.helpers, turns, id, policy);
		if (!policy.retry) await record.forgetIfUnused(Date.now());
		return record;
	}

	/**
	 * Records the claims (and any accepted marks waiting to be written) in one call; returns the
	 * claims that were there already: numbers sent (or on their way) before.
	 */
	async claim(claims: readonly string[], accepted: readonly string[] = []): Promise<Set<string>> {
		const values = [...claims, ...accepted, ...this.usedMark(Date.now())];
		if (values.length === 0) return new Set();
		const { processed } = await this.turn(async () => await this.checkAndRecord(values));
		this.known.add(values);
		return new Set(processed.map(String));
	}

	/** Which of these claims found in the record were also accepted (the others: outcome unknown). */
	async acceptedAmong(acceptedMarks: readonly string[]): Promise<Set<string>> {
		if (acceptedMarks.length === 0) return new Set();
		const values = [...acceptedMarks];
		const processed = await this.turn(async () => {
			const asked = await this.checkAndRecord(values);
			// Asking recorded the marks that were not there: they are taken back in the same turn.
			if (asked.new.length > 0) await this.store.removeProcessed(asked.new, 'node', OPTIONS);
			return asked.processed.map(String);
		});
		this.known.add(processed);
		return new Set(processed);
	}

	/** Gives back claims of numbers the service certainly did not take, so a later run sends them. */
	async release(claims: readonly string[]): Promise<void> {
		if (claims.length === 0) return;
		await this.turn(async () => await this.store.removeProcessed([...claims], 'node', OPTIONS));
		this.known.remove(claims);
	}

	/**
	 * The end of a run: accepted marks still waiting are written, unless the run ends its campaign.
	 * Then the record is emptied when it holds nothing this run does not know of; otherwise (another
	 * campaign of the same node, a run beside this one) the run takes back its own values when that
	 * is cheap, and leaves its campaign to be forgotten when it is not.
	 */
	async finish(accepted: readonly string[], reachedEveryone: boolean): Promise<void> {
		if (!reachedEveryone || !this.policy.endsCampaign) return void (await this.claim([], accepted));
		const own = this.known.listed;
		const ended = await this.turn(async () => {
			const held = await this.store.getProcessedDataCount('node', OPTIONS);
			if (held === this.known.size) {
				await this.store.clearAllProcessedItems('node', OPTIONS);
				return true;
			}
			if (!own || own.length * held > TAKE_BACK_COMPARISONS) return false;
			await this.store.removeProcessed(own, 'node', OPTIONS);
			return true;
		});
		if (!ended) await this.claim([], accepted);
	}

	/**
	 * Forgets an unfinished campaign no run has used for Resume Within hours. The store says only
	 * whether it has seen a value, and records what it is asked about: the hour marks of the
	 * window are asked for, and those it had not seen are taken back at once.
	 */
	private async forgetIfUnused(now: number): Promise<void> {
		const hour = hourOf(now);
		const marks = Array.from({ length: this.policy.resumeWithinHours + 1 }, (_, back) =>
			usedKey(hour - back),
		);
		const used = await this.turn(async () => {
			if ((await this.store.getProcessedDataCount('node', OPTIONS)) === 0) return [];
			const asked = await this.checkAndRecord(marks);
			if (asked.processed.length === 0) {
				await this.store.clearAllProcessedItems('node', OPTIONS);
				return [];
			}
			await this.store.removeProcessed(asked.new, 'node', OPTIONS);
			return asked.processed.map(String);
		});
		this.known.add(used);
	}

	/**
	 * n8n's "seen before?", once more on a failure: when two processes write a node's first values
	 * at once, the database refuses the second record, and a second try finds the first.
	 */
	private async checkAndRecord(values: readonly string[]) {
		const ask = async () => await this.store.checkProcessedAndRecord([...values], 'node', OPTIONS);
		return await ask().catch(ask);
	}

	/** The hour mark, once per hour of the run: the record is in use. */
	private usedMark(now: number): string[] {
		const hour = hourOf(now);
		if (hour === this.usedHour) return [];
		this.usedHour = hour;
		return [usedKey(hour)];
	}

	/** Calls to the store that must not be interleaved with another run's, in one turn. */
	private async turn<T>(calls: () => Promise<T>): Promise<T> {
		return await this.turns.inTurn(this.id, calls);
	}
}

function hourOf(time: number): number {
	return Math.floor(time / 3_600_000);
}
