/**
 * Send's record in n8n's deduplication store of its node (nodes/shared/deduplicationStore.ts): the
 * facts of facts.ts, written and asked about in the calls the run makes (claims.ts), and forgotten
 * by the rule the README states:
 * - a production run's own campaign, once it ends without failing, is taken out at once (nobody
 *   resumes it: n8n retries only a failed execution);
 * - everything else (the editor's runs, a Campaign Key, a run that failed or crashed) is kept, and
 *   forgotten Resume Within hours after the last run that kept something: each such run marks the
 *   hours it ran in ("kept"), and the first run of an hour that finds no mark within Resume Within
 *   empties the record. A Retry never empties it.
 * n8n reads and rewrites the whole record on every call: the cost of a call grows with what the
 * record holds, which is why a production run takes its campaign out when it ends.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { DeduplicationStore, type StoreTurns } from '../../../../shared/deduplicationStore';
import { hourOf, keptMark } from './facts';

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
	private markedHour = -1;

	constructor(
		context: IExecuteFunctions,
		turns: StoreTurns,
		private readonly resumeWithinHours: number,
		private readonly clock: () => number,
	) {
		this.store = new DeduplicationStore(context, 'node', RECORD_ENTRIES, turns);
	}

	/** Names the record among those of this n8n process. */
	get name(): string {
		return this.store.name;
	}

	/** How many values the record holds (n8n reads it whole to count them). */
	async size(): Promise<number> {
		return await this.store.inTurn(async () => await this.store.size());
	}

	/**
	 * Empties a record that no run kept anything in for Resume Within hours. Once an hour (a
	 * "looked" value says it was done): the look costs a search of the record per hour of the window.
	 */
	async forgetIfStale(): Promise<void> {
		const hour = hourOf(this.clock());
		const looked = `looked ${hour}`;
		await this.store.inTurn(async () => {
			if ((await this.store.record([looked])).has(looked)) return;
			this.remember([looked]);
			const window = Array.from({ length: this.resumeWithinHours + 1 }, (_, back) =>
				keptMark(hour - back),
			);
			if ((await this.store.has(window)).size > 0) return;
			await this.store.forgetAll();
			await this.store.record([looked]);
		});
	}

	/** Marks the campaign opened; whether another run had opened it before. */
	async isOpened(campaign: string): Promise<boolean> {
		const opened = `opened ${campaign}`;
		return (await this.record([opened])).has(opened);
	}

	/** Records the values in one call, with this hour's kept mark; gives those there before. */
	async record(values: readonly string[]): Promise<Set<string>> {
		const all = [...values, ...this.markOfThisHour()];
		if (all.length === 0) return new Set();
		const before = await this.store.inTurn(async () => await this.store.record(all));
		this.remember(all.filter((value) => !before.has(value)));
		return before;
	}

	/** Which of the values are there (asking leaves nothing behind). */
	async has(values: readonly string[]): Promise<Set<string>> {
		return await this.store.inTurn(async () => await this.store.has(values));
	}

	/** Takes this run's claims out again (numbers the service certainly did not take). */
	async forget(claims: readonly string[]): Promise<void> {
		if (claims.length === 0) return;
		await this.store.inTurn(async () => await this.store.forget(claims));
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
		await this.store.inTurn(async () => {
			const held = await this.store.size();
			if (held <= this.addedCount) await this.store.forgetAll();
			else if (own && own.length * held <= TAKE_OUT_COMPARISONS) await this.store.forget(own);
		});
	}

	/**
	 * The end of a run that keeps what it wrote: this hour is marked again, in case a run that
	 * took its campaign out meanwhile took out the mark it had made.
	 */
	async keep(): Promise<void> {
		if (this.markedHour < 0) return;
		this.markedHour = -1;
		await this.record([]);
	}

	/** This hour's kept mark, once per hour of the run. */
	private markOfThisHour(): string[] {
		const hour = hourOf(this.clock());
		if (hour === this.markedHour) return [];
		this.markedHour = hour;
		return [keptMark(hour)];
	}

	private remember(values: readonly string[]): void {
		this.addedCount += values.length;
		if (!this.added) return;
		this.added.push(...values);
		if (this.added.length > REMEMBERED) this.added = undefined;
	}
}
