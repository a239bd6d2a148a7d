/**
 * The calls a run makes to write the record while it sends. A request goes out only once its
 * claim is written, and at most Concurrent Requests are claimed without a written answer, so that
 * after a crash only those are in doubt. One store call writes the answers that came in meanwhile
 * and the claims they free; a checkpoint (campaignWrites.ts) replaces the facts of the requests
 * behind it by two markers and their exception facts, in a second call. So every call rewrites a
 * record of about the same size, however far the campaign has got (facts.ts).
 */
import type { Answer, CampaignWrites } from './campaignWrites';
import type { RecordStore } from './store';

/** Values of one campaign, to write or to take away. */
type Owned = [CampaignWrites, readonly string[]];

function values(owned: readonly Owned[]): string[] {
	return owned.flatMap(([, list]) => list);
}

/** A claim waiting for its turn in a call. */
interface Waiting {
	campaign: CampaignWrites;
	position: number;
	resolve: () => void;
	reject: (error: Error) => void;
}

/**
 * The run's calls: one at a time, each writing what came in since the last one. Never two loops:
 * `kick` starts one when none runs, or asks the running one for one more round.
 */
export class Writer {
	private readonly waiting: Waiting[] = [];
	/** Values to write, and to take away after, with the campaign they are of (none: the run's). */
	private facts: Owned[] = [];
	private removals: Owned[] = [];
	private afterWrite: Array<() => void> = [];
	/** Claims written whose answers are not: requests that would be in doubt after a crash. */
	private open = 0;
	private running = false;
	private again = false;
	private idle: Array<() => void> = [];
	/** Why the record could not be written: every later claim fails with it. */
	failed: Error | undefined;

	constructor(
		private readonly store: RecordStore,
		private readonly campaigns: readonly CampaignWrites[],
		private readonly concurrency: number,
	) {
		for (const campaign of campaigns) this.facts.push([campaign, campaign.opening]);
	}

	/** Resolves once request `position`'s claim is written. */
	async claim(campaign: CampaignWrites, position: number): Promise<void> {
		if (this.failed) throw this.failed;
		await new Promise<void>((resolve, reject) => {
			this.waiting.push({ campaign, position, resolve, reject });
			this.kick();
		});
	}

	/**
	 * The service's answer for a request; written with the next call, which frees its claim.
	 * `claimed` false: a request the run did not send at all (its send failed before it).
	 */
	answered(campaign: CampaignWrites, position: number, answer: Answer, claimed = true): void {
		const { add, remove } = campaign.answerFacts(position, answer);
		if (this.failed) return;
		this.facts.push([campaign, add]);
		this.removals.push([campaign, remove]);
		this.afterWrite.push(() => {
			campaign.written(position);
			if (claimed) this.open--;
		});
		this.kick();
	}

	/** A held-back request may complete a checkpoint. */
	settled(): void {
		this.kick();
	}

	/** Resolves when everything given so far is written, or could not be. */
	async finish(): Promise<Error | undefined> {
		if (this.running) await new Promise<void>((resolve) => this.idle.push(resolve));
		return this.failed;
	}

	private kick(): void {
		if (this.failed) return;
		if (this.running) {
			this.again = true;
			return;
		}
		this.running = true;
		void this.loop();
	}

	private async loop(): Promise<void> {
		try {
			do {
				this.again = false;
				await this.round();
			} while (this.again);
		} catch (error) {
			this.fail(error as Error);
		} finally {
			this.running = false;
			for (const done of this.idle.splice(0)) done();
		}
	}

	/** One call with the answers and checkpoints due and the claims they free; then what they make stale. */
	private async round(): Promise<void> {
		const checkpoints = this.campaigns.flatMap((campaign) => {
			const due = campaign.checkpoint();
			return due ? [{ campaign, ...due }] : [];
		});
		const taken = this.take(this.concurrency - this.open);
		const facts: Owned[] = [
			...this.facts,
			...checkpoints.map((due): Owned => [due.campaign, due.add]),
			...taken.map(({ campaign, position }): Owned => [campaign, campaign.claimFacts(position)]),
		];
		const removals: Owned[] = [
			...this.removals,
			...checkpoints.map((due): Owned => [due.campaign, due.remove]),
		];
		const afterWrite = this.afterWrite;
		if (facts.length === 0 && removals.length === 0) return;
		this.facts = [];
		this.removals = [];
		this.afterWrite = [];
		this.waiting.unshift(...taken); // until written, a failure reaches them with the others
		await this.store.record(values(facts));
		this.waiting.splice(0, taken.length);
		for (const [campaign, written] of facts) for (const v of written) campaign.present.add(v);
		for (const done of afterWrite) done();
		this.open += taken.length;
		for (const { resolve } of taken) resolve();
		if (values(removals).length > 0) {
			await this.store.forget(values(removals));
			for (const [campaign, gone] of removals) for (const v of gone) campaign.present.delete(v);
		}
		for (const due of checkpoints) due.campaign.passed(due.end);
		this.again ||= this.campaigns.some((campaign) => campaign.checkpoint() !== undefined);
		this.again ||= this.waiting.length > 0 && this.open < this.concurrency;
	}

	/** Waiting claims that may be written now: as many as are free, each within its window. */
	private take(free: number): Waiting[] {
		const taken: Waiting[] = [];
		for (let n = 0; n < this.waiting.length && taken.length < free; ) {
			const next = this.waiting[n];
			if (!next.campaign.inWindow(next.position)) {
				n++;
				continue;
			}
			taken.push(...this.waiting.splice(n, 1));
		}
		return taken;
	}

	/**
	 * The record could not be written: no claim is made any more. Answers not written leave their
	 * claims in the record: in doubt, never sent twice.
	 */
	private fail(error: Error): void {
		this.failed = error;
		for (const { reject } of this.waiting.splice(0)) reject(error);
	}
}
