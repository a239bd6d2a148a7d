/**
 * Send's record in n8n's deduplication store of its node (nodes/shared/deduplicationStore.ts): the
 * calls a run makes, one after another with the other runs of this n8n process, and the rule by
 * which the record forgets. Everything a campaign keeps is forgotten Resume Within hours after the
 * last run that kept something: each run writes the hours it keeps something in (`kept <hour>`),
 * and the first run of an hour that finds none within Resume Within empties the record.
 *
 * n8n reads and rewrites the whole record on every call, so a call costs what the record holds:
 * the record therefore holds, per campaign, a few markers and the facts of its last requests
 * (facts.ts), never a fact per number sent.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { DeduplicationStore, type StoreQueue } from '../../../../shared/deduplicationStore';
import { hourOf, kept, looked } from './facts';

/** n8n drops the oldest values past this; the record stays far below it (facts.ts). */
const MAX_ENTRIES = 1_000_000;

/** Hours of kept hours and looks behind the window that a look clears away. */
const CLEARED_BEHIND = 48;

export class RecordStore {
	private readonly store: DeduplicationStore;
	private keptHourWritten = -1;
	/** This run wrote the kept hour new: nobody else needs it if the run takes its campaign out. */
	private keptHourOwn = false;

	constructor(
		context: IExecuteFunctions,
		queue: StoreQueue,
		private readonly resumeWithinHours: number,
		private readonly clock: () => number,
	) {
		this.store = new DeduplicationStore(context, 'node', MAX_ENTRIES, queue);
	}

	/** Names the record among those of this n8n process. */
	get name(): string {
		return this.store.name;
	}

	/** The same name, without opening the record. */
	static nameOf(context: IExecuteFunctions): string {
		return DeduplicationStore.nameOf(context, 'node');
	}

	/** Calls that no other run of this process may come between. */
	async alone<T>(calls: () => Promise<T>): Promise<T> {
		return await this.store.queued(calls);
	}

	/**
	 * Records the values (with this hour's kept hour when `keep`) and gives those there before.
	 * Within `alone`, call `recordNow`.
	 */
	async record(values: readonly string[], keep = true): Promise<Set<string>> {
		return await this.alone(async () => await this.recordNow(values, keep));
	}

	async recordNow(values: readonly string[], keep = true): Promise<Set<string>> {
		const hour = keep ? this.keptHourNow() : undefined;
		const all = hour === undefined ? values : [...values, hour];
		const before = await this.store.record(all);
		if (hour !== undefined) this.keptHourOwn = !before.has(hour);
		return before;
	}

	/** Which of the values are there; asking leaves nothing behind. */
	async has(values: readonly string[]): Promise<Set<string>> {
		return await this.alone(async () => await this.store.has(values));
	}

	async hasNow(values: readonly string[]): Promise<Set<string>> {
		return await this.store.has(values);
	}

	async forget(values: readonly string[]): Promise<void> {
		await this.alone(async () => await this.forgetNow(values));
	}

	async forgetNow(values: readonly string[]): Promise<void> {
		await this.store.forget(values);
	}

	/**
	 * The first run of an hour looks whether any run kept something within Resume Within, and
	 * empties the record if none did; older kept hours and looks are taken away. A Retry never
	 * empties it. Within `alone`.
	 */
	async forgetIfStaleNow(retry: boolean): Promise<void> {
		const hour = hourOf(this.clock());
		if ((await this.store.record([looked(hour)])).size > 0 || retry) return;
		const window = Array.from({ length: this.resumeWithinHours + 1 }, (_, back) =>
			kept(hour - back),
		);
		if ((await this.store.has(window)).size === 0) {
			await this.store.forgetAll();
			await this.store.record([looked(hour)]);
			return;
		}
		const behind = Array.from({ length: CLEARED_BEHIND }, (_, back) => [
			kept(hour - this.resumeWithinHours - 1 - back),
			looked(hour - 1 - back),
		]).flat();
		await this.store.forget(behind);
	}

	/**
	 * The end of a run that keeps its campaign: the values, and this hour's kept hour again when
	 * another run wrote it (that run may have taken it out since, with its own campaign).
	 */
	async keep(values: readonly string[]): Promise<void> {
		if (!this.keptHourOwn) this.keptHourWritten = -1;
		await this.record(values);
	}

	/** This hour's kept hour, if this run has not written it yet. */
	private keptHourNow(): string | undefined {
		const hour = hourOf(this.clock());
		if (hour === this.keptHourWritten) return undefined;
		this.keptHourWritten = hour;
		return kept(hour);
	}

	/** The kept hour this run wrote new, for a run that takes its campaign out. */
	ownKeptHour(): string[] {
		return this.keptHourOwn ? [kept(this.keptHourWritten)] : [];
	}
}
