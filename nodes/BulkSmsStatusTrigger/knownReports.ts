/**
 * What this n8n process knows of each Status Trigger's reports, beside the memory stored in the
 * workflow's static data (storedMemory.ts).
 *
 * Why it exists: n8n reads the static data when a callback comes and writes it when the execution
 * the callback started ends, whole, last writer wins. Twenty copies of one callback that arrive
 * together all read it before any of them is written, and each would start the workflow. Within
 * one process, JavaScript runs one callback at a time between two awaits: a key noted here before
 * the next await is known to every copy that comes after it, so the first copy starts the
 * workflow and the others are answered as repeats. Keys of a callback whose execution is being
 * started are "held": known, but not stored, until n8n has answered that callback 2xx (the
 * execution was started); if it answers anything else, they are let go and the service's retry
 * is news again.
 *
 * It lives in the node type's instance (n8n makes one per process), not in module scope, so that
 * a test makes a new process by making a new node; and it is bounded like the stored memory.
 */
import { randomBytes } from 'crypto';

import { Gathering } from './gathering';
import type { Recent } from './storedMemory';

/** Triggers remembered at once per process; the least recently called is forgotten first. */
const TRIGGERS = 64;

export class KnownReports {
	private readonly triggers = new Map<string, TriggerMemory>();
	/** Names this process in the hand-overs it makes (handover.ts). */
	readonly process = randomBytes(8).toString('hex');

	/** The memory of one trigger (workflow and node), bounded to `limit` keys. */
	of(trigger: string, limit: number): TriggerMemory {
		const memory = this.triggers.get(trigger) ?? new TriggerMemory();
		this.triggers.delete(trigger);
		this.triggers.set(trigger, memory);
		if (this.triggers.size > TRIGGERS) this.triggers.delete(this.triggers.keys().next().value!);
		memory.bound(limit);
		return memory;
	}
}

export class TriggerMemory implements Recent {
	/** Keys seen, least recently first (a Map keeps insertion order). */
	private readonly seen = new Map<string, true>();
	/** Keys of callbacks being handed to an execution, with how many such callbacks hold each. */
	private readonly held = new Map<string, number>();
	private limit = Infinity;
	private turn: Promise<unknown> = Promise.resolve();
	/** Callbacks of this trigger waiting to ride in the next execution. */
	readonly gathering = new Gathering();

	/** Seen, or held by a callback whose execution is being started. */
	knows(key: string): boolean {
		return this.held.has(key) || this.seen.has(key);
	}

	/** Seen (what may be stored): held keys are not, until their callback was answered 2xx. */
	has(key: string): boolean {
		return this.seen.has(key);
	}

	keys(): Iterable<string> {
		return this.seen.keys();
	}

	learn(keys: Iterable<string>): void {
		for (const key of keys) {
			this.seen.delete(key);
			this.seen.set(key, true);
		}
		this.bound(this.limit);
	}

	hold(keys: readonly string[]): void {
		for (const key of keys) this.held.set(key, (this.held.get(key) ?? 0) + 1);
	}

	/** A callback that held `keys` was answered: kept when its execution started, else let go. */
	release(keys: readonly string[], started: boolean): void {
		for (const key of keys) {
			const holders = (this.held.get(key) ?? 1) - 1;
			if (holders > 0) this.held.set(key, holders);
			else this.held.delete(key);
		}
		if (started) this.learn(keys);
	}

	bound(limit: number): void {
		this.limit = limit;
		while (this.seen.size > limit) this.seen.delete(this.seen.keys().next().value!);
	}

	/** Runs `work` after the work given before it has ended: one at a time, in order. */
	inTurn<T>(work: () => Promise<T>): Promise<T> {
		const result = this.turn.then(work);
		this.turn = result.catch(() => undefined);
		return result;
	}
}
