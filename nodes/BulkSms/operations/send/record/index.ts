/**
 * Send's record of what it handed to the service, so that nobody gets a text twice in a campaign
 * (campaign.ts says which runs are one): the one door the run uses. It opens the record for a run
 * (open.ts: which campaign each request continues, and what earlier runs of it settled), holds
 * back or claims each request before it goes out (writer.ts), takes the service's answers, and at
 * the run's end takes the campaign out or keeps it.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import type { Settled } from './earlier';
import { complete, lastOf, slotOf, type UnknownCause } from './facts';
import { openCampaign, type Campaign } from './open';
import { Positions, type PlannedRequest } from './positions';
import type { Accepted, SendProcess } from './process';
import { runStartOf } from './runStart';
import { RecordStore } from './store';
import type { Answer } from './campaignWrites';
import { Writer } from './writer';

export { laterStepOf } from './runStart';
export { SendProcess } from './process';
export type { Campaign } from './open';
export { overrideTurnBound, TURN_BOUND_MS } from './process';
export type { Answer } from './campaignWrites';
export type { UnknownCause } from './facts';

export interface RecordSettings {
	concurrency: number;
	resumeWithinHours: number;
	resendUnknown: boolean;
}

/** A request of the run, as the record sees it: its Campaign Key (empty if none) and its row. */
export interface RecordRequest extends PlannedRequest {
	key: string;
	item: number;
}

/** A request not sent now, and why. */
export interface HeldBack {
	state: 'sent before' | 'in doubt';
	/** Why its outcome is unknown; `stillSending`: another run of this process is sending it. */
	cause?: UnknownCause | 'stillSending';
	/** Known when it was accepted in this n8n process. */
	batchId?: string;
	execution?: string;
}

/** A request n8n ran Send for only on the way to a later step: sent before (this process saw it), or not sent. */
export type HeldNumberState = Omit<HeldBack, 'state'> & { state: HeldBack['state'] | 'not sent' };

/** What the run does with a request: send it and give the answer, or hold it back. */
export type Decision = { held: HeldBack } | { answered(answer: Answer): void };

interface Place {
	campaign: Campaign;
	position: number;
}

export class SendRecord {
	private constructor(
		private readonly context: IExecuteFunctions,
		private readonly store: RecordStore,
		private readonly process: SendProcess,
		private readonly resendUnknown: boolean,
		/** Each request of the run: its campaign and its position in that campaign's plan. */
		private readonly places: readonly Place[],
		private readonly campaigns: readonly Campaign[],
		private readonly writer: Writer,
	) {}

	static async open(
		context: IExecuteFunctions,
		requests: readonly RecordRequest[],
		settings: RecordSettings,
		process: SendProcess,
		clock: () => number = Date.now,
	): Promise<SendRecord> {
		const store = new RecordStore(context, process.queue, settings.resumeWithinHours, clock);
		const start = runStartOf(context);
		await store.alone(async () => await store.forgetIfStaleNow(start.mode === 'retry'));
		const places: Place[] = [];
		const campaigns: Campaign[] = [];
		let opened = false;
		try {
			for (const [key, group] of groupsOf(requests)) {
				const positions = new Positions(group.map((index) => requests[index]));
				const itemOf = (position: number) => requests[group[position]].item;
				const opening = { context, store, process, start, clock, itemOf };
				const campaign = await openCampaign(opening, key, positions);
				campaigns.push(campaign);
				group.forEach((index, position) => (places[index] = { campaign, position }));
			}
			opened = true;
		} finally {
			// Not opened whole: the campaigns opened so far are let go for other runs.
			if (!opened) for (const campaign of campaigns) campaign.release?.();
		}
		const writing = campaigns.filter((c) => !c.holder).map((c) => c.writes);
		const writer = new Writer(store, writing, settings.concurrency);
		return new SendRecord(
			context,
			store,
			process,
			settings.resendUnknown,
			places,
			campaigns,
			writer,
		);
	}

	/** The campaign request `index` of the run is counted in. */
	campaignAt(index: number): Campaign {
		return this.places[index].campaign;
	}

	/**
	 * Holds request `index` back when earlier runs settled it (or another run of this process is
	 * sending it), or claims it: then it goes out, and its answer is given with `answered`.
	 */
	async decide(index: number): Promise<Decision> {
		const { campaign, position } = this.places[index];
		const { writes } = campaign;
		const before = writes.settledBefore(position);
		const key = `${this.store.name} ${writes.positions.hash(position)}`;
		const held = heldOf(before, this.process.answers.of(key));
		if (campaign.holder) return { held: heldBeside(held, campaign.holder) };
		if (held && before && !(held.state === 'in doubt' && this.resendUnknown)) {
			writes.held(position, before);
			this.writer.settled();
			return { held };
		}
		await this.writer.claim(writes, position);
		return {
			answered: (answer) => {
				if (answer.outcome === 'accepted') {
					const execution = this.context.getExecutionId();
					this.process.answers.remember(key, { batchId: answer.batchId, execution });
				}
				this.writer.answered(writes, position, answer);
			},
		};
	}

	/**
	 * A request the run does not send because an earlier request of its send failed (Continue On
	 * Fail): certainly not sent, so a run that resumes the campaign sends it.
	 */
	skip(index: number): void {
		const { campaign, position } = this.places[index];
		if (!campaign.holder)
			this.writer.answered(campaign.writes, position, { outcome: 'released' }, false);
	}

	/**
	 * What a run that n8n makes only on the way to a later step holds back (it sends nothing): a
	 * request accepted in this process with the same requests before it is sent before, with its
	 * batch; any other is not sent.
	 */
	static forLaterStep(
		context: IExecuteFunctions,
		requests: readonly RecordRequest[],
		process: SendProcess,
	): HeldNumberState[] {
		const record = RecordStore.nameOf(context);
		const held: HeldNumberState[] = [];
		for (const group of groupsOf(requests).values()) {
			const positions = new Positions(group.map((index) => requests[index]));
			group.forEach((index, position) => {
				const accepted = process.answers.of(`${record} ${positions.hash(position)}`);
				held[index] = accepted
					? { state: 'sent before', batchId: accepted.batchId, execution: accepted.execution }
					: { state: 'not sent' };
			});
		}
		return held;
	}

	/**
	 * Writes every answer given; then takes out each campaign the run began and sent whole when it
	 * ended well (nobody resumes it), and keeps the others, marked complete when the run ended
	 * well with nothing left to send. Never throws: what could not be written is returned.
	 */
	async finish(endedWell: boolean, keep = false): Promise<string[]> {
		try {
			const failed = await this.writer.finish();
			if (failed) return [failed.message];
			for (const campaign of this.campaigns) await this.close(campaign, endedWell, keep);
			return [];
		} catch (error) {
			return [(error as Error).message];
		} finally {
			for (const campaign of this.campaigns) campaign.release?.();
		}
	}

	/** `keep`: the run fails after sending all it could; its Retries hold back what it sent. */
	private async close(campaign: Campaign, endedWell: boolean, keep: boolean): Promise<void> {
		const { writes, slot } = campaign;
		if (campaign.holder) return;
		if (campaign.own && endedWell && !keep && !writes.notAllAccepted && writes.settledAll()) {
			const slotFacts = slot === undefined ? [] : [slotOf(slot), lastOf(slot)];
			await this.store.forget([...writes.present, ...slotFacts, ...this.store.ownKeptHour()]);
			return;
		}
		// A run stopped or failed is an interrupted one, even when it left nothing to send.
		await this.store.keep(endedWell && !writes.leftAnything() ? [complete(writes.name)] : []);
	}
}

function heldOf(settled: Settled | undefined, accepted?: Accepted): HeldBack | undefined {
	if (!settled || settled.outcome === 'released') return undefined;
	if (settled.outcome === 'accepted') {
		return { state: 'sent before', batchId: accepted?.batchId, execution: accepted?.execution };
	}
	return { state: 'in doubt', cause: settled.cause };
}

/**
 * A request of a campaign another run of this process is still sending: sent before, or in
 * doubt for the answer the record has, or, with none, because that run may send it yet.
 */
function heldBeside(held: HeldBack | undefined, holder: string): HeldBack {
	if (held?.state === 'sent before') return held;
	if (held?.cause !== undefined && held.cause !== 'unanswered') return held;
	return { state: 'in doubt', cause: 'stillSending', execution: holder };
}

/** The run's requests by Campaign Key, in the order they go out. */
function groupsOf(requests: readonly RecordRequest[]): Map<string, number[]> {
	const groups = new Map<string, number[]>();
	requests.forEach((request, index) => {
		const group = groups.get(request.key);
		if (group) group.push(index);
		else groups.set(request.key, [index]);
	});
	return groups;
}
