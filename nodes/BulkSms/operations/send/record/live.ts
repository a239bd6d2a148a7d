/**
 * The numbers this n8n process is sending right now, by record and claim, with a promise of the
 * service's answer. A run that finds a number claimed asks here first: when another run in this
 * process holds the claim, it waits for that run's answer rather than taking the number for one an
 * earlier run left in doubt. One per process, kept on the node type's instance with the store's
 * queue (across processes the record alone is shared: docs/decisions.md, "Send's record").
 */
import type { UnknownCause } from './facts';

export type LiveAnswer = { execution: string } & (
	| { outcome: 'accepted'; batchId?: string }
	| { outcome: 'released' }
	| { outcome: 'unknown'; cause: UnknownCause }
);

interface Sending {
	answer: Promise<LiveAnswer>;
	resolve: (answer: LiveAnswer) => void;
}

export class LiveSends {
	private readonly sending = new Map<string, Sending>();

	/** This run claimed the number and will answer for it. */
	claimed(key: string): void {
		let resolve!: (answer: LiveAnswer) => void;
		const answer = new Promise<LiveAnswer>((done) => (resolve = done));
		this.sending.set(key, { answer, resolve });
	}

	answer(key: string, answer: LiveAnswer): void {
		this.sending.get(key)?.resolve(answer);
		this.sending.delete(key);
	}

	/** The answer of a run of this process that is sending the number, or undefined. */
	answerOf(key: string): Promise<LiveAnswer> | undefined {
		return this.sending.get(key)?.answer;
	}
}
