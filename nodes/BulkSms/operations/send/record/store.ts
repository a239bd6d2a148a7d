/**
 * Send's record in n8n's deduplication store of its node (nodes/shared/deduplicationStore.ts): the
 * facts of facts.ts, written and asked about in the calls the run makes (claims.ts), and forgotten
 * by the rule the README states:
 * - a production run's own campaign, once it ends without failing, is taken out at once (nobody
 *   resumes it: n8n retries only a failed execution);
 * - everything else (the editor's runs, a Campaign Key, a run that failed or crashed) is kept, and
 *   forgotten Resume Within hours after the last run that kept something: each run writes the
 *   hours it ran in ("kept <hour>"), and the first run of an hour that finds none within Resume
 *   Within empties the record. A Retry never empties it.
 * n8n reads and rewrites the whole record on every call: the cost of a call grows with what the
 * record holds, which is why a production run takes its campaign out when it ends.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { DeduplicationStore, type StoreQueue } from '../../../../shared/deduplicationStore';
import { hourOf, keptHour } from './facts';

/** The most values the record keeps (two a number sent: a million numbers), the oldest going first. */
export const RECORD_ENTRIES = 2_100_000;

/**
 * n8n's removeProcessed searches the whole record for each value it takes out: past this many
 * comparisons (about a second of n8n's time) a run leaves its campaign for Resume Within to forget
 * instead (test/bulkSms/campaignRecord.test.ts, "a production run takes its campaign out").
 */
const TAKE_OUT_COMPARISONS = 100_000_000;

/** Values a run remembers writing, to take them out when it ends; past this it only counts them. */
const REMEMBERED = 20_000;

export class RecordStore {
	private readonly store: DeduplicationStore;
	/** Values this run added (new to the record), to take out when it ends; undefined past REMEMBERED. */
	private added: string[] | undefined = [];
	private addedCount = 0;
	private keptHourWritten = -1;
	/** This hour's kept hour was in the record already: another run wrote it, and may take it out. */
	private keptHourNotOwn = false;

	constructor(
		context: IExecuteFunctions,
		queue: StoreQueue,
		private readonly resumeWithinHours: number,
		private readonly clock: () => number,
	) {
		this.store = new DeduplicationStore(context, 'node', RECORD_ENTRIES, queue);
	}

	/** Names the record among those of this n8n process. */
	get name(): string {
		return this.store.name;
	}

	/** How many values the record holds (n8n reads it whole to count them). */
	async size(): Promise<number> {
		return await this.store.queued(async () => await this.store.size());
	}

	/**
	 * Opens the record for a run, in one call: records the production campaigns given as opened and
	 * says which another run had opened before (the same trigger starting twice in a millisecond).
	 * The first run of an hour that is not a Retry also looks whether any run kept something within
	 * Resume Within, and empties the record if none did; a "looked" value says the hour was looked
	 * at, since the look costs a search of the record per hour of the window.
	 */
	async open(campaigns: readonly string[], retry: boolean): Promise<Set<string>> {
		const hour = hourOf(this.clock());
		const looked = `looked ${hour}`;
		const opened = campaigns.map((campaign) => `opened ${campaign}`);
		const before = await this.record(retry ? opened : [...opened, looked], false);
		if (!retry && !before.has(looked)) await this.forgetIfStale(hour, opened);
		return new Set(campaigns.filter((_, index) => before.has(opened[index])));
	}

	private async forgetIfStale(hour: number, opened: readonly string[]): Promise<void> {
		const window = Array.from({ length: this.resumeWithinHours + 1 }, (_, back) =>
			keptHour(hour - back),
		);
		await this.store.queued(async () => {
			if ((await this.store.has(window)).size > 0) return;
			await this.store.forgetAll();
			await this.store.record([...opened, `looked ${hour}`]);
		});
	}

	/** Records the values in one call (with this hour's kept hour); gives those there before. */
	async record(values: readonly string[], keep = true): Promise<Set<string>> {
		const kept = keep ? this.keptHourNow() : [];
		const all = [...values, ...kept];
		if (all.length === 0) return new Set();
		const before = await this.store.queued(async () => await this.store.record(all));
		this.remember(all.filter((value) => !before.has(value)));
		if (kept.length > 0) this.keptHourNotOwn = before.has(kept[0]);
		return before;
	}

	/** Which of the values are there (asking leaves nothing behind). */
	async has(values: readonly string[]): Promise<Set<string>> {
		return await this.store.queued(async () => await this.store.has(values));
	}

	/** Takes this run's claims out again (numbers the service certainly did not take). */
	async forget(claims: readonly string[]): Promise<void> {
		if (claims.length === 0) return;
		await this.store.queued(async () => await this.store.forget(claims));
		const gone = new Set(claims);
		if (this.added) this.added = this.added.filter((value) => !gone.has(value));
		this.addedCount -= claims.length;
	}

	/**
	 * The end of a production run that did not fail: its campaign is taken out. The record is
	 * emptied when it holds only what this run added; otherwise the run's own values are taken out
	 * when that is cheap, and left to Resume Within when it is not.
	 */
	async takeOut(): Promise<void> {
		const own = this.added;
		if (this.addedCount === 0) return;
		await this.store.queued(async () => {
			const held = await this.store.size();
			if (held <= this.addedCount) await this.store.forgetAll();
			else if (own && own.length * held <= TAKE_OUT_COMPARISONS) await this.store.forget(own);
		});
	}

	/**
	 * The end of a run that keeps what it wrote: when another run wrote this hour's kept hour, it is
	 * written again, in case that run took its campaign out meanwhile, and the kept hour with it.
	 */
	async keep(): Promise<void> {
		if (!this.keptHourNotOwn) return;
		this.keptHourWritten = -1;
		await this.record([]);
	}

	/** This hour's kept hour, once per hour of the run. */
	private keptHourNow(): string[] {
		const hour = hourOf(this.clock());
		if (hour === this.keptHourWritten) return [];
		this.keptHourWritten = hour;
		return [keptHour(hour)];
	}

	private remember(values: readonly string[]): void {
		this.addedCount += values.length;
		if (!this.added) return;
		this.added.push(...values);
		if (this.added.length > REMEMBERED) this.added = undefined;
	}
}
