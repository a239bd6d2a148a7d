/**
 * A campaign as one run writes it: which of its requests are settled, the facts the record holds
 * of them, and what a checkpoint writes and takes away (facts.ts). Requests are followed one by
 * one from the last checkpoint on, and behind it only those with exception facts (in doubt, not
 * sent), which a run that goes on may send again. The calls themselves are writer.ts's.
 */
import type { Earlier, Settled } from './earlier';
import {
	accepted,
	at,
	claim,
	dirty,
	pos,
	released,
	STEP,
	through,
	unknown,
	type UnknownCause,
} from './facts';
import type { Positions } from './positions';

/** What the service said of a request. */
export type Answer =
	| { outcome: 'accepted'; batchId?: string }
	/** Certainly not taken (refused, not sent, or never sent): a later run may send it. */
	| { outcome: 'released' }
	| { outcome: 'unknown'; cause: Exclude<UnknownCause, 'unanswered'> };

/** A campaign as one run writes it. */
export class CampaignWrites {
	/** Every request before it is settled, and written so (the last checkpoint). */
	base: number;
	/** The values of this campaign the record holds, as far as this run knows. */
	readonly present = new Set<string>();
	/** Requests at or after `base`, and those behind it that this run sends again. */
	private readonly requests = new Map<number, Request>();
	/** Behind `base`: the requests each dirty segment still has exception facts for. */
	private readonly exceptionsBehind = new Map<number, Set<number>>();
	/** Requests this run sent that the service did not simply accept, or that it held back. */
	notAllAccepted = false;

	constructor(
		readonly name: string,
		readonly positions: Positions,
		readonly earlier: Earlier | undefined,
		/** What a new campaign writes before its first claim (index.ts). */
		readonly opening: readonly string[],
	) {
		this.base = earlier?.through ?? 0;
		if (!earlier) return;
		this.present.add(at(name, this.base));
		this.present.add(through(name, positions.prefix(this.base)));
		for (const end of earlier.dirtySegments) this.present.add(dirty(name, positions.prefix(end)));
		for (const [i, facts] of earlier.facts) {
			for (const fact of facts) this.present.add(fact);
			if (i < this.base) this.exceptionBehind(i);
		}
	}

	/** What earlier runs settled of request i, if anything. */
	settledBefore(i: number): Settled | undefined {
		if (!this.earlier) return undefined;
		const state = this.earlier.states.get(i);
		if (state || i >= this.earlier.through) return state;
		return { outcome: 'accepted' };
	}

	/** How request i stands now: as this run settled it, or as earlier runs left it. */
	private stateOf(i: number): Settled | undefined {
		return this.requests.get(i)?.settled ?? this.settledBefore(i);
	}

	/** The run holds request i back: it is settled as earlier runs left it. */
	held(i: number, settled: Settled): void {
		this.notAllAccepted = true;
		// Behind the checkpoint, the record says it already: only those after it are followed.
		if (i < this.base) return;
		this.request(i).settled = settled;
		this.request(i).written = true;
	}

	/** The facts that claim request i (for requests behind the checkpoint: in doubt until answered). */
	claimFacts(i: number): string[] {
		const h = this.positions.hash(i);
		const facts =
			i < this.base
				? [unknown('unanswered', this.name, h)]
				: [claim(this.name, h), pos(this.name, i)];
		for (const fact of facts) this.request(i).facts.add(fact);
		return facts;
	}

	/** Whether request i may be claimed now: within two segments of the checkpoint. */
	inWindow(i: number): boolean {
		return i < this.base || i < this.base + 2 * STEP;
	}

	/** The fact an answer writes; what it makes stale is given back for taking away. */
	answerFacts(i: number, answer: Answer): { add: string[]; remove: string[] } {
		const request = this.request(i);
		const settled: Settled =
			answer.outcome === 'unknown' ? { outcome: 'unknown', cause: answer.cause } : answer;
		if (settled.outcome !== 'accepted') this.notAllAccepted = true;
		request.settled = settled;
		if (i >= this.base) {
			const add = this.finalFacts(i, settled);
			if (settled.outcome === 'accepted') add.push(accepted(this.name, this.positions.hash(i)));
			for (const fact of add) request.facts.add(fact);
			return { add, remove: [] };
		}
		return this.settleBehind(i, settled);
	}

	/** Request i's answer is written. */
	written(i: number): void {
		this.request(i).written = true;
	}

	/**
	 * The next checkpoint, once the STEP requests after `base` are settled and written: the facts
	 * to write, then those to take away. Undefined when it is not yet.
	 */
	checkpoint(): { add: string[]; remove: string[]; end: number } | undefined {
		const end = this.base + STEP;
		if (end > this.positions.length) return undefined;
		for (let i = this.base; i < end; i++) {
			const request = this.requests.get(i);
			if (!request?.written || !request.settled) return undefined;
		}
		const add = [at(this.name, end), through(this.name, this.positions.prefix(end))];
		const remove = [at(this.name, this.base), through(this.name, this.positions.prefix(this.base))];
		let exceptions = false;
		for (let i = this.base; i < end; i++) {
			const request = this.requests.get(i)!;
			const kept = this.finalFacts(i, request.settled!);
			exceptions ||= kept.length > 0;
			const change = factsChange(request.facts, kept);
			add.push(...change.add);
			remove.push(...change.remove);
		}
		if (exceptions) add.push(dirty(this.name, this.positions.prefix(end)));
		return { add, remove, end };
	}

	/**
	 * The checkpoint is written: the requests behind it are no longer followed one by one, but
	 * for those with exception facts (in doubt, not sent), which a run that goes on may send again.
	 */
	passed(end: number): void {
		for (let i = this.base; i < end; i++) {
			const request = this.requests.get(i)!;
			if (request.settled?.outcome === 'accepted') {
				this.requests.delete(i);
				continue;
			}
			request.facts = new Set(this.finalFacts(i, request.settled!));
			this.exceptionBehind(i);
		}
		this.base = end;
		this.positions.forgetBefore(end);
	}

	/** Whether every request this run was given is settled. */
	settledAll(): boolean {
		for (let i = this.base; i < this.positions.length; i++) {
			if (!this.requests.get(i)?.settled) return false;
		}
		for (const segment of this.exceptionsBehind.values()) {
			for (const i of segment) if (this.stateOf(i)?.outcome === 'released') return false;
		}
		return true;
	}

	/** Whether anything is left to do: requests not settled, in doubt, or certainly not sent. */
	leftAnything(): boolean {
		if (!this.settledAll()) return true;
		for (const request of this.requests.values()) {
			if (request.settled?.outcome !== 'accepted') return true;
		}
		for (const segment of this.exceptionsBehind.values()) if (segment.size > 0) return true;
		return false;
	}

	private request(i: number): Request {
		let request = this.requests.get(i);
		if (!request) {
			request = { facts: new Set(this.earlier?.facts.get(i) ?? []), written: false };
			this.requests.set(i, request);
		}
		return request;
	}

	/** Request i, behind the checkpoint, keeps exception facts in its segment. */
	private exceptionBehind(i: number): void {
		const end = segmentEnd(i);
		this.exceptionsBehind.set(end, (this.exceptionsBehind.get(end) ?? new Set<number>()).add(i));
	}

	/** The facts a settled request keeps behind a checkpoint: none when accepted. */
	private finalFacts(i: number, settled: Settled): string[] {
		const h = this.positions.hash(i);
		if (settled.outcome === 'accepted') return [];
		if (settled.outcome === 'released') return [released(this.name, h)];
		return [unknown(settled.cause, this.name, h)];
	}

	/** A request behind the checkpoint sent again: its exception facts say its new outcome. */
	private settleBehind(i: number, settled: Settled): { add: string[]; remove: string[] } {
		const request = this.request(i);
		const kept = this.finalFacts(i, settled);
		const { add, remove } = factsChange(request.facts, kept);
		request.facts = new Set(kept);
		const end = segmentEnd(i);
		const segment = this.exceptionsBehind.get(end);
		if (kept.length === 0) segment?.delete(i);
		if (segment?.size === 0) {
			remove.push(dirty(this.name, this.positions.prefix(end)));
			this.exceptionsBehind.delete(end);
		}
		return { add, remove };
	}
}

/** The end of the segment of STEP requests that request i is in. */
function segmentEnd(i: number): number {
	return (Math.floor(i / STEP) + 1) * STEP;
}

/** What to write and take away so that a request's facts become `kept`. */
function factsChange(facts: ReadonlySet<string>, kept: readonly string[]) {
	return {
		add: kept.filter((fact) => !facts.has(fact)),
		remove: [...facts].filter((fact) => !kept.includes(fact)),
	};
}

interface Request {
	/** The facts the record holds (or is about to) of this request. */
	facts: Set<string>;
	settled?: Settled;
	/** Its outcome is in the record (or was there already: held back). */
	written: boolean;
}
