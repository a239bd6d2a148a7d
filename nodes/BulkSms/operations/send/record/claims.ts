/**
 * Claims in the record before sending. A request goes out only once its numbers are claimed, and
 * at most Concurrent Requests are claimed and not yet answered in the record, so that after a
 * crash only those are in doubt. One store call writes what the service answered meanwhile and
 * claims as many waiting requests as those answers free, so the record is written once per round
 * of answers, not once per request: n8n rewrites the whole record on every call, and the requests
 * answered while one call runs share the next.
 *
 * A number another run claimed is held back: sent before (accepted then), or in doubt (claimed,
 * never answered). When that run is still running in this n8n process, this one waits for its
 * answer instead (LiveSends): nobody held back for a run in flight, nobody sent twice because of it.
 */
import {
	factsOf,
	requestFactsOf,
	UNKNOWN_CAUSES,
	type NumberFacts,
	type RequestFacts,
	type UnknownCause,
} from './facts';
import type { LiveAnswer, LiveSends } from './live';
import type { RecordStore } from './store';

/** The numbers of one request, and the send (campaign and text) they get. */
export interface RequestNumbers {
	send: string;
	numbers: readonly string[];
}

/** What the service said of the numbers a request carried. */
export type Answer =
	| { outcome: 'accepted'; batchId?: string }
	/** Certainly not taken (refused, not sent, or never sent): a later run may send them. */
	| { outcome: 'released' }
	| { outcome: 'unknown'; cause: UnknownCause };

/** A number not sent now, and why. */
export interface HeldBack {
	msisdn: string;
	state: 'sent before' | 'in doubt';
	/** Why its outcome is unknown, when the record knows; none: its run stopped before the answer. */
	cause?: UnknownCause;
	/** Known when the run that sent it ran in this n8n process. */
	batchId?: string;
	execution?: string;
}

/** A request's claim: the numbers it sends and those it holds back. */
export interface Claimed {
	sending: string[];
	held: HeldBack[];
	/** The service's answer for `sending`: written with the next call, which frees the claim. */
	answered(answer: Answer): void;
}

/** A request's numbers as one call claimed them; fresh: no earlier run claimed them together. */
interface Take {
	facts: RequestFacts;
	fresh: boolean;
}

/** What one call found for one request. */
interface Found {
	take: Take;
	sending: NumberFacts[];
	held: HeldBack[];
	/** Claimed by another run of this n8n process, which is sending them now. */
	onItsWay: NumberFacts[];
}

interface Waiting {
	request: RequestNumbers;
	resolve: (found: Found) => void;
	reject: (error: Error) => void;
}

export class Claims {
	private readonly waiting: Waiting[] = [];
	/**
	 * Answers waiting to be written: their facts, the claims they free once written, and what other
	 * runs of this process waiting on these numbers learn once the record says it too.
	 */
	private answerFacts: string[] = [];
	private freeing = 0;
	private answersLearned: Array<() => void> = [];
	private releases: string[] = [];
	private releasing = 0;
	private releasesLearned: Array<() => void> = [];
	/** Claims made and not yet freed: requests that would be in doubt after a crash. */
	private open = 0;
	private writing: Promise<void> | undefined;
	/** Why the record could not be written: every later claim fails with it. */
	private failed: Error | undefined;
	private recordValues: number;

	/** The values the record holds, as far as this run can tell (at its start, and what it added). */
	get values(): number {
		return this.recordValues;
	}

	constructor(
		private readonly store: RecordStore,
		private readonly live: LiveSends,
		private readonly execution: string,
		private readonly concurrency: number,
		private readonly resendUnknown: boolean,
		recordValues: number,
	) {
		this.recordValues = recordValues;
	}

	/** Claims the request's numbers when its turn comes; those claimed before are held back. */
	async claim(request: RequestNumbers): Promise<Claimed> {
		const sending: NumberFacts[] = [];
		const held: HeldBack[] = [];
		const takes: Take[] = [];
		let claims = 0;
		let claimed = false;
		try {
			for (let numbers = request.numbers; numbers.length > 0; ) {
				const found = await this.take({ send: request.send, numbers });
				claims++;
				takes.push(found.take);
				sending.push(...found.sending);
				held.push(...found.held);
				// Numbers the other run gave back (it did not send them) are claimed again, by this run.
				const given = await this.settle(found.onItsWay, held);
				numbers = given.map((fact) => fact.msisdn);
			}
			claimed = true;
		} finally {
			// Not claimed whole: what was claimed is given back (or stays in doubt, if the record fails).
			if (!claimed) this.answered(sending, claims, { outcome: 'released' }, fresh(takes, 'claim'));
		}
		const whole = takes.length === 1 && sending.length === request.numbers.length;
		if (sending.length === 0) this.free(claims, fresh(takes, 'split'));
		return {
			sending: sending.map((fact) => fact.msisdn),
			held,
			answered: (answer) =>
				this.answered(sending, claims, answer, requestAnswer(takes, whole, answer)),
		};
	}

	/** Resolves when the record holds every answer given so far, or with why it could not. */
	async finish(): Promise<Error | undefined> {
		while (this.writing) await this.writing;
		return this.failed;
	}

	/** `ofRequests`: the facts of the requests as claimed that this answer writes (or gives back). */
	private answered(
		sent: NumberFacts[],
		claims: number,
		answer: Answer,
		ofRequests: string[],
	): void {
		if (sent.length === 0) return;
		const told = () => {
			for (const fact of sent) {
				this.live.answer(this.liveKey(fact), { ...answer, execution: this.execution });
			}
		};
		// The record cannot be written: runs waiting on these numbers learn it at once.
		if (this.failed) return told();
		if (answer.outcome === 'released') {
			this.releases.push(...sent.map((fact) => fact.claim), ...ofRequests);
			this.releasing += claims;
			this.releasesLearned.push(told);
		} else {
			const factOf = (fact: NumberFacts) =>
				answer.outcome === 'accepted' ? fact.accepted : fact.unknown[answer.cause];
			this.answerFacts.push(...sent.map(factOf), ...ofRequests);
			this.freeing += claims;
			this.answersLearned.push(told);
		}
		this.write();
	}

	/** Claims that sent nothing: freed, with the facts their requests leave (`split`). */
	private free(claims: number, facts: string[]): void {
		this.answerFacts.push(...facts);
		this.open -= claims;
		this.write();
	}

	private async take(request: RequestNumbers): Promise<Found> {
		if (this.failed) throw this.failed;
		return await new Promise<Found>((resolve, reject) => {
			this.waiting.push({ request, resolve, reject });
			this.write();
		});
	}

	private write(): void {
		if (this.failed) return;
		this.writing ??= this.writeRounds()
			.catch((error: Error) => this.fail(error))
			.finally(() => (this.writing = undefined));
	}

	/**
	 * The record could not be written: no claim is made any more, and runs waiting on numbers this
	 * run holds learn it at once. Answers not written leave their claims open: in doubt, never
	 * sent twice.
	 */
	private fail(error: Error): void {
		this.failed = error;
		for (const { reject } of this.waiting.splice(0)) reject(error);
		for (const tell of [...this.answersLearned, ...this.releasesLearned]) tell();
		this.answersLearned = [];
		this.releasesLearned = [];
	}

	private async writeRounds(): Promise<void> {
		for (;;) {
			if (this.releases.length > 0) await this.writeReleases();
			const answers = this.answerFacts;
			const freed = this.freeing;
			const learned = this.answersLearned;
			const free = this.concurrency - (this.open - freed);
			const taken = this.waiting.splice(0, Math.max(0, free));
			if (answers.length === 0 && taken.length === 0) {
				if (this.releases.length === 0) return;
				continue;
			}
			this.answerFacts = [];
			this.freeing = 0;
			this.answersLearned = [];
			// The requests taken go back to wait, so that a failure reaches them with the others.
			this.waiting.unshift(...taken);
			try {
				await this.claimRound(taken, answers);
			} finally {
				for (const tell of learned) tell();
			}
			this.waiting.splice(0, taken.length);
			this.open += taken.length - freed;
		}
	}

	private async writeReleases(): Promise<void> {
		const claims = this.releases;
		const freed = this.releasing;
		const learned = this.releasesLearned;
		this.releases = [];
		this.releasing = 0;
		this.releasesLearned = [];
		try {
			await this.store.forget(claims);
		} finally {
			for (const tell of learned) tell();
		}
		this.recordValues -= claims.length;
		this.open -= freed;
	}

	/** One call: the answers' facts and the taken requests' claims; then what those claims found. */
	private async claimRound(taken: Waiting[], answers: string[]): Promise<void> {
		const facts = taken.map(({ request }) =>
			request.numbers.map((msisdn) => factsOf(request.send, msisdn)),
		);
		const requests = taken.map(({ request }) => requestFactsOf(request.send, request.numbers));
		const claims = [...facts.flat(), ...requests].map((fact) => fact.claim);
		const before = await this.store.record([...claims, ...answers]);
		this.recordValues += claims.length + answers.length - before.size;
		const takes = requests.map((request) => ({
			facts: request,
			fresh: !before.has(request.claim),
		}));
		const found = await this.earlier(
			facts.map((numbers, index) => {
				const claimed = numbers.filter((fact) => before.has(fact.claim));
				return { take: takes[index], numbers: claimed, whole: claimed.length === numbers.length };
			}),
		);
		taken.forEach(({ resolve }, index) => {
			const result: Found = { take: takes[index], sending: [], held: [], onItsWay: [] };
			for (const fact of facts[index]) {
				const earlier = found.get(fact.claim);
				if (earlier === undefined) {
					// On its way from now: another run of this process that finds it waits for its answer.
					this.live.claimed(this.liveKey(fact));
					result.sending.push(fact);
				} else if (earlier === ON_ITS_WAY) result.onItsWay.push(fact);
				else result.held.push(earlier);
			}
			resolve(result);
		});
	}

	/**
	 * What the record says of numbers claimed before: sent before, in doubt (and why), or on their
	 * way in another run of this process. In doubt goes out again only with Resend Numbers With
	 * Unknown Outcome: then its claim is this run's. A request an earlier run claimed whole, with
	 * the same numbers, is asked as one (facts.ts says why); any other by its numbers.
	 */
	private async earlier(
		requests: ClaimedBefore[],
	): Promise<Map<string, HeldBack | typeof ON_ITS_WAY>> {
		const found = new Map<string, HeldBack | typeof ON_ITS_WAY>();
		const asked: NumberFacts[] = [];
		const askedWhole: ClaimedBefore[] = [];
		for (const request of requests) {
			const notLive = request.numbers.filter((fact) => {
				if (!this.live.answerOf(this.liveKey(fact))) return true;
				found.set(fact.claim, ON_ITS_WAY);
				return false;
			});
			const asOne =
				!request.take.fresh && request.whole && notLive.length === request.numbers.length;
			if (asOne) askedWhole.push(request);
			else asked.push(...notLive);
		}
		asked.push(...(await this.earlierRequests(askedWhole, found)));
		if (asked.length === 0) return found;
		const accepted = await this.store.has(asked.map((fact) => fact.accepted));
		const doubtful = asked.filter((fact) => !accepted.has(fact.accepted));
		const causes = await this.store.has(
			doubtful.flatMap((fact) => UNKNOWN_CAUSES.map((cause) => fact.unknown[cause])),
		);
		for (const fact of asked) {
			if (accepted.has(fact.accepted)) {
				found.set(fact.claim, { msisdn: fact.msisdn, state: 'sent before' });
			} else if (!this.resendUnknown) {
				const cause = UNKNOWN_CAUSES.find((c) => causes.has(fact.unknown[c]));
				found.set(fact.claim, { msisdn: fact.msisdn, state: 'in doubt', cause });
			}
		}
		return found;
	}

	/**
	 * Requests an earlier run claimed with the same numbers: sent before when accepted; otherwise in
	 * doubt, for the cause the request's facts give, unless it did not go out whole (`split`) or
	 * numbers in doubt are to be sent again: their numbers are returned, to be asked one by one.
	 */
	private async earlierRequests(
		requests: ClaimedBefore[],
		found: Map<string, HeldBack | typeof ON_ITS_WAY>,
	): Promise<NumberFacts[]> {
		if (requests.length === 0) return [];
		const accepted = await this.store.has(requests.map(({ take }) => take.facts.accepted));
		const hold = (request: ClaimedBefore, state: HeldBack['state'], cause?: UnknownCause) => {
			for (const fact of request.numbers) {
				found.set(fact.claim, { msisdn: fact.msisdn, state, cause });
			}
		};
		const doubtful = requests.filter((request) => {
			if (!accepted.has(request.take.facts.accepted)) return true;
			hold(request, 'sent before');
			return false;
		});
		if (this.resendUnknown) return doubtful.flatMap((request) => request.numbers);
		const said = await this.store.has(
			doubtful.flatMap(({ take }) => [
				take.facts.split,
				...UNKNOWN_CAUSES.map((cause) => take.facts.unknown[cause]),
			]),
		);
		const byNumber: NumberFacts[] = [];
		for (const request of doubtful) {
			const { split, unknown } = request.take.facts;
			if (said.has(split)) byNumber.push(...request.numbers);
			else
				hold(
					request,
					'in doubt',
					UNKNOWN_CAUSES.find((cause) => said.has(unknown[cause])),
				);
		}
		return byNumber;
	}

	/**
	 * Waits for the answers of another run of this process for these numbers. Accepted: sent
	 * before, with its batch; unknown: in doubt; given back: returned, to be claimed again.
	 */
	private async settle(onItsWay: NumberFacts[], held: HeldBack[]): Promise<NumberFacts[]> {
		const given: NumberFacts[] = [];
		for (const fact of onItsWay) {
			const answer = await this.live.answerOf(this.liveKey(fact));
			if (answer === undefined || answer.outcome === 'released') given.push(fact);
			else held.push(heldByLive(fact.msisdn, answer));
		}
		return given;
	}

	private liveKey(fact: NumberFacts): string {
		return `${this.store.name} ${fact.claim}`;
	}
}

const ON_ITS_WAY = Symbol('on its way in another run of this process');

/** A request's numbers that earlier runs claimed; whole: every one of its numbers. */
interface ClaimedBefore {
	take: Take;
	numbers: NumberFacts[];
	whole: boolean;
}

/**
 * A fact of each request this run claimed first: its claim, given back with its numbers' claims;
 * or `split`, when it sends nothing (only its numbers' facts can tell).
 */
function fresh(takes: readonly Take[], fact: 'claim' | 'split'): string[] {
	return takes.filter((take) => take.fresh).map((take) => take.facts[fact]);
}

/**
 * What an answer says of the requests as claimed: a request that went out whole has the answer's
 * outcome; one that did not, `split`; a request given back, its claims given back too.
 */
function requestAnswer(takes: readonly Take[], whole: boolean, answer: Answer): string[] {
	if (answer.outcome === 'released') return fresh(takes, 'claim');
	if (!whole) return takes.map((take) => take.facts.split);
	const { facts } = takes[0];
	return [answer.outcome === 'accepted' ? facts.accepted : facts.unknown[answer.cause]];
}

function heldByLive(msisdn: string, answer: LiveAnswer): HeldBack {
	if (answer.outcome === 'accepted') {
		return { msisdn, state: 'sent before', batchId: answer.batchId, execution: answer.execution };
	}
	const cause = answer.outcome === 'unknown' ? answer.cause : undefined;
	return { msisdn, state: 'in doubt', cause, execution: answer.execution };
}
