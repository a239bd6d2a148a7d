/**
 * Opens a run's campaign as campaign.ts decides it: a slot of its own for a new campaign; for the
 * editor, the node's last run when that run was interrupted with these rows; the campaign a Retry
 * or a Campaign Key names. A campaign without a Campaign Key lives in one of SLOTS slots, so that
 * a run can find the node's last run (`last <n>`) in one call, whatever started it.
 */
import { NodeOperationError, sleep, type IExecuteFunctions } from 'n8n-workflow';

import { campaignRule, type RunStart } from './campaign';
import { readEarlier, RowsDiffer } from './earlier';
import { at, family, keyCampaign, lastOf, opened, SLOTS, slotOf, through } from './facts';
import type { Positions, PlannedRequest } from './positions';
import { turnBound, type SendProcess } from './process';
import { customDataKey } from './runStart';
import type { RecordStore } from './store';
import { CampaignWrites } from './campaignWrites';

/** A campaign the run sends in, and how to say which in words. */
export interface Campaign {
	label: string;
	writes: CampaignWrites;
	/** Another run of this process is sending it, past the wait: this run only reads it. */
	holder?: string;
	/** A new campaign of a slot of its own: taken out when the run ends having sent all of it. */
	own: boolean;
	slot?: number;
	release?: () => void;
}

interface Opening {
	context: IExecuteFunctions;
	store: RecordStore;
	process: SendProcess;
	start: RunStart;
	clock: () => number;
	/** The row each request of the campaign comes from, for errors. */
	itemOf: (position: number) => number;
}

export async function openCampaign(
	opening: Opening,
	key: string,
	positions: Positions,
): Promise<Campaign> {
	const verdict = campaignRule(opening.start, key);
	if (verdict.kind === 'key') {
		return await continued(opening, keyCampaign(key), `Campaign Key "${key}"`, positions);
	}
	if (verdict.kind === 'retry') {
		return await continued(opening, verdict.campaign, 'the run this Retry continues', positions);
	}
	if (verdict.kind === 'editor') return await editorCampaign(opening, positions);
	return await newCampaign(opening, positions);
}

/** A campaign named by a Campaign Key or a Retry: after its turn, read as earlier runs left it. */
async function continued(
	opening: Opening,
	name: string,
	label: string,
	positions: Positions,
): Promise<Campaign> {
	const { store, process, context, clock } = opening;
	const execution = context.getExecutionId();
	const turn = `${store.name} ${name}`;
	const waited = (holder: string, ms: number) => sayWaiting(context, holder, label, ms);
	const release = await process.turns.take(turn, execution, turnBound(), waited, sleep, clock);
	const earlier = await store.alone(async () => await readEarlier(store, name, positions));
	if (earlier instanceof RowsDiffer || (!earlier && opening.start.mode === 'retry')) {
		release?.();
		throw refusal(opening, label, earlier);
	}
	const opened_ = earlier ? [] : openingFacts(name, positions);
	const writes = new CampaignWrites(name, positions, earlier, opened_);
	if (!release) return stillSending(opening, turn, label, writes);
	return { label, writes, own: false, release };
}

/**
 * The editor's campaign: the node's last run's, when that run was interrupted with these rows
 * (after its turn: a run of this process still finishing what Stop let finish is waited for);
 * otherwise a new one.
 */
async function editorCampaign(opening: Opening, positions: Positions): Promise<Campaign> {
	const { store, process, context, clock } = opening;
	const last = await store.alone(async () => await lastRun(store));
	if (last === undefined) return await newCampaign(opening, positions);
	const name = slotOf(last);
	const label = 'the interrupted run it resumes';
	const waited = (holder: string, ms: number) => sayWaiting(context, holder, label, ms);
	const turn = `${store.name} ${name}`;
	const execution = context.getExecutionId();
	const release = await process.turns.take(turn, execution, turnBound(), waited, sleep, clock);
	const found = await store.alone(async () => await readEarlier(store, name, positions));
	if (found instanceof RowsDiffer) {
		release?.();
		throw refusal(opening, "the Send node's last run, which was interrupted,", found);
	}
	if (!found || found.complete) {
		release?.();
		return await newCampaign(opening, positions);
	}
	nameForRetries(context, name);
	const writes = new CampaignWrites(name, positions, found, []);
	if (!release) return stillSending(opening, turn, label, writes);
	return { label, writes, own: false, slot: last, release };
}

/**
 * A new campaign, in a free slot (with none free, in one no other run can find); the execution's
 * custom data names it for a Retry.
 */
async function newCampaign(opening: Opening, positions: Positions): Promise<Campaign> {
	const { store, process, context, clock } = opening;
	const chosen = await store.alone(async () => {
		const slots = await lookUpSlots(store);
		const free = Array.from({ length: SLOTS }, (_, n) => n).find((n) => !slots.taken.has(n));
		await settleSlots(store, slots, free);
		return free;
	});
	const name = chosen === undefined ? `run ${context.getExecutionId()}` : slotOf(chosen);
	nameForRetries(context, name);
	const writes = new CampaignWrites(name, positions, undefined, openingFacts(name, positions));
	const turn = `${store.name} ${name}`;
	const release = await process.turns.take(
		turn,
		context.getExecutionId(),
		0,
		() => {},
		sleep,
		clock,
	);
	return { label: 'this run', writes, own: true, slot: chosen, release };
}

/** The slot of the node's last run without a Campaign Key, if it still holds a campaign. */
async function lastRun(store: RecordStore): Promise<number | undefined> {
	const slots = await lookUpSlots(store);
	await store.forgetNow(slots.added);
	return slots.lasts.find((n) => slots.taken.has(n));
}

/** Past its turn's wait: another run of this process still sends the campaign; this one reads it. */
function stillSending(
	opening: Opening,
	turn: string,
	label: string,
	writes: CampaignWrites,
): Campaign {
	const { context, process } = opening;
	const holder = process.turns.holder(turn) ?? 'another execution';
	context.logger.warn(
		`${where(context)}: stopped waiting for execution ${holder}, which is sending ${label}: what it has not settled is in doubt`,
	);
	return { label, writes, holder, own: false };
}

interface Slots {
	taken: Set<number>;
	/** Slots a `last` names: normally one. */
	lasts: number[];
	/** The values asking wrote: taken away again unless they are the run's own. */
	added: string[];
}

/** Which slots are taken and which holds the node's last run: asked in one call. */
async function lookUpSlots(store: RecordStore): Promise<Slots> {
	const numbers = Array.from({ length: SLOTS }, (_, n) => n);
	const values = [...numbers.map(slotOf), ...numbers.map(lastOf)];
	const before = await store.recordNow(values, false);
	return {
		taken: new Set(numbers.filter((n) => before.has(slotOf(n)))),
		lasts: numbers.filter((n) => before.has(lastOf(n))),
		added: values.filter((value) => !before.has(value)),
	};
}

/** Keeps `slot` and `last` for the chosen slot only; the rest asking wrote, and older lasts, go. */
async function settleSlots(store: RecordStore, slots: Slots, chosen?: number): Promise<void> {
	const keep = chosen === undefined ? [] : [slotOf(chosen), lastOf(chosen)];
	const older = slots.lasts.filter((n) => n !== chosen).map(lastOf);
	await store.forgetNow([...slots.added, ...older].filter((value) => !keep.includes(value)));
}

/** What a new campaign writes with its first claims. */
function openingFacts(name: string, positions: Positions): string[] {
	if (positions.length === 0) return [];
	return [
		opened(name),
		family(name, positions.hash(0)),
		at(name, 0),
		through(name, positions.prefix(0)),
	];
}

function nameForRetries(context: IExecuteFunctions, name: string): void {
	try {
		context.getWorkflowDataProxy(0).$execution.customData.set(customDataKey(context), name);
	} catch {
		// No custom data here: a Retry of this run is a campaign of its own.
	}
}

function sayWaiting(context: IExecuteFunctions, holder: string, label: string, ms: number): void {
	context.logger.info(
		`${where(context)}: waiting for execution ${holder}, which is sending ${label}, to end (${Math.round(ms / 1000)} s so far, at most ${turnBound() / 1000} s)`,
	);
}

function where(context: IExecuteFunctions): string {
	const node = context.getNode().name;
	return `Bulk SMS Send "${node}" (workflow ${context.getWorkflow().id ?? '?'}, execution ${context.getExecutionId()})`;
}

/** A campaign Send cannot continue without guessing: nothing is sent, and the error says why. */
function refusal(opening: Opening, label: string, differ?: RowsDiffer): NodeOperationError {
	const { context } = opening;
	if (!differ) {
		return new NodeOperationError(
			context.getNode(),
			`Send's record no longer holds ${label}: it was forgotten Resume Within hours after that run, so sending now could reach someone twice; nothing was sent`,
			{
				description:
					"Check what that execution sent (its output, or Send's progress lines in n8n's log). To send to everyone again, turn off Send Each Number Once for this run.",
			},
		);
	}
	const item = opening.itemOf(differ.position);
	return new NodeOperationError(
		context.getNode(),
		`${capitalised(label)} sent other rows than these (they differ at or before item ${item}), so Send cannot tell who has the text already; nothing was sent`,
		{
			description:
				label === 'Campaign Key' || label.startsWith('Campaign Key')
					? 'To resume it, run it with the rows as they were. To send these rows as a new campaign, give a new Campaign Key, or turn off Send Each Number Once to send to everyone again.'
					: 'To finish that run, Retry it from the Executions list with the original workflow: it sends only what it had not. To send these rows as a new campaign anyway, set Options → Campaign Key (e.g. a test name), or turn off Send Each Number Once.',
			itemIndex: item,
		},
	);
}

function capitalised(text: string): string {
	return text.charAt(0).toUpperCase() + text.slice(1);
}

export type { PlannedRequest };
