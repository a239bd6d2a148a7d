/**
 * A tracking campaign under faults: the Bulk SMS Trigger polls several batches (one large)
 * through n8n-core's PollTriggerExecutor while answers fail, come back garbled, leave reports
 * out and list them again, or change their order; n8n restarts from the saved static data and
 * polls overlap. A clean tail follows, and then every final status the sandbox holds must
 * have been emitted exactly once.
 */
import type { IDataObject, INode } from 'n8n-workflow';

import { BULK_SMS_TRIGGER, pollOnce } from '../engine/harness';
import { credentialsFor } from '../bulkSms/workflow';
import { seeded } from '../seeded';
import { sendDirect } from '../../sandbox/client';
import type { Sandbox } from '../../sandbox/server';
import type { FaultProxy } from './faultProxy';

export interface TriggerCampaign {
	/** Destinations of each batch; the batches are sent at different sandbox times. */
	batchSizes: readonly number[];
	polls: number;
	/** Share of requests that meet a fault during the campaign (the tail has none). */
	faultShare: number;
	seed: number;
}

export interface TriggerTally {
	batches: number;
	destinations: number;
	polls: number;
	failedPolls: number;
	restarts: number;
	overlaps: number;
	emitted: number;
	duplicates: number;
	missed: number;
}

/** Sandbox time from send to a final status (the sandbox default). */
const FINAL_AFTER_MS = 5000;

export async function runTriggerCampaign(
	sandbox: Sandbox,
	proxy: FaultProxy,
	campaign: TriggerCampaign,
): Promise<TriggerTally> {
	const random = seeded(campaign.seed);
	const batchIds: string[] = [];
	let next = 447800000000;
	for (const size of campaign.batchSizes) {
		const destinations = Array.from({ length: size }, () => String(next++));
		// Straight to the sandbox: the trigger is under test here, not Send.
		batchIds.push(await sendDirect(sandbox.baseUrl, destinations, { message: 'Hi' }));
		sandbox.advance(Math.floor(FINAL_AFTER_MS / 2)); // batches finish at different polls
	}
	const watcher = new Watcher(sandbox, proxy.baseUrl, batchIds);
	const tally: TriggerTally = {
		batches: batchIds.length,
		destinations: campaign.batchSizes.reduce((sum, size) => sum + size, 0),
		polls: 0,
		failedPolls: 0,
		restarts: 0,
		overlaps: 0,
		emitted: 0,
		duplicates: 0,
		missed: 0,
	};
	// Faults from the first poll on: a batch's first answer may already leave reports out.
	proxy.setFaults(campaign.faultShare);
	for (let poll = 0; poll < campaign.polls; poll++) {
		sandbox.advance(Math.floor(random() * 1500));
		if (random() < 0.05) await flipSomeReport(sandbox, random);
		if (random() < 0.1) {
			watcher.restart();
			tally.restarts++;
		}
		const overlap = random() < 0.1;
		if (overlap) tally.overlaps++;
		const failures = await Promise.all(
			overlap ? [watcher.poll(), watcher.poll()] : [watcher.poll()],
		);
		tally.polls += failures.length;
		tally.failedPolls += failures.filter(Boolean).length;
	}
	proxy.setFaults(0);
	sandbox.advance(8 * 24 * 3600 * 1000); // past every validity: all that can end has ended
	for (let tail = 0; tail < 3; tail++) await watcher.poll();
	tally.polls += 3;
	return { ...tally, ...watcher.verdict(batchIds) };
}

/** The trigger as an active workflow: in-memory static data, and what n8n saved of it. */
class Watcher {
	private staticData: IDataObject = {};
	private readonly persisted: IDataObject = {};
	/** Emissions per batch_id|msisdn: the statuses emitted, in order. */
	readonly emitted = new Map<string, string[]>();
	private readonly node: INode;
	private readonly credentials: ReturnType<typeof credentialsFor>;
	/** After a restart n8n activates the workflow again: its first poll is an activation. */
	private activating = true;

	constructor(
		private readonly sandbox: Sandbox,
		baseUrl: string,
		batchIds: readonly string[],
	) {
		this.credentials = credentialsFor(sandbox, { baseUrl });
		this.node = {
			id: 'watch',
			name: 'Watch',
			type: BULK_SMS_TRIGGER,
			typeVersion: 1,
			position: [0, 0],
			parameters: { batchIds: batchIds.join(','), emit: 'final', emitExisting: true },
		};
	}

	/**
	 * One poll; true when it failed: n8n records a failed execution and polls again later, or,
	 * for a failed activation, tries to activate again later.
	 */
	async poll(): Promise<boolean> {
		const activation = this.activating;
		try {
			const outcome = await pollOnce({
				node: this.node,
				credentials: this.credentials,
				staticData: this.staticData,
				persisted: this.persisted,
				activation,
			});
			for (const { json } of outcome.result?.[0] ?? []) {
				const key = `${String(json.batch_id)}|${String(json.msisdn)}`;
				this.emitted.set(key, [...(this.emitted.get(key) ?? []), String(json.status)]);
			}
			if (activation) this.activating = false;
			return outcome.error !== undefined;
		} catch {
			return true;
		}
	}

	/** n8n restarted: what was in memory is gone, the saved static data is what it starts from. */
	restart(): void {
		this.staticData = JSON.parse(JSON.stringify(this.persisted)) as IDataObject;
		this.activating = true;
	}

	/** Every final status the sandbox holds emitted once, and nothing else emitted. */
	verdict(batchIds: readonly string[]): Pick<TriggerTally, 'emitted' | 'duplicates' | 'missed'> {
		let emitted = 0;
		let duplicates = 0;
		let missed = 0;
		const finals = new Map<string, string>();
		const watched = new Set(batchIds);
		for (const batch of this.sandbox.received().batches) {
			if (!watched.has(batch.batch_id)) continue;
			for (const { msisdn, status } of batch.messages) {
				if (status !== 'ENROUTE') finals.set(`${batch.batch_id}|${msisdn}`, status);
			}
		}
		for (const [key, statuses] of this.emitted) {
			emitted += statuses.length;
			duplicates += statuses.length - 1;
			if (!finals.has(key)) duplicates++; // emitted, yet not final at the service
		}
		for (const [key, status] of finals) {
			if (!this.emitted.get(key)?.includes(status)) missed++;
		}
		return { emitted, duplicates, missed };
	}
}

/** A message that would stay ENROUTE for ever is deleted at the service, as an operator might. */
async function flipSomeReport(sandbox: Sandbox, random: () => number): Promise<void> {
	const pending = sandbox
		.received()
		.batches.flatMap((batch) => batch.messages)
		.filter((message) => message.status === 'ENROUTE');
	if (pending.length === 0) return;
	const message = pending[Math.floor(random() * pending.length)];
	await sandbox.forceStatus(message.gateway_session_id, random() < 0.5 ? 'DELETED' : 'UNKNOWN');
}
