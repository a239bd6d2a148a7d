/**
 * A send campaign under faults: destinations go out through the BulkSms node in n8n's engine,
 * round after round as a user would re-run what was reported "not sent", and every destination
 * is then reconciled against what the sandbox actually accepted.
 *
 * The promise checked: each destination is accepted once, or reported unknown, or reported not
 * sent; none is accepted twice and none is lost without a word.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { errorOf, outputOf, runWorkflow } from '../engine/harness';
import { credentialsFor, items, line, send, trigger } from '../bulkSms/workflow';
import type { Sandbox } from '../../sandbox/server';

export type SendShape = 'per item' | 'chunked';

export interface SendCampaign {
	shape: SendShape;
	continueOnFail: boolean;
	destinations: readonly string[];
	/** Where the node sends: the sandbox, or a fault proxy in front of it. */
	baseUrl: string;
	/** Per item: how many numbers each item (each request) carries; 1 by default. */
	destinationsPerItem?: number;
	/** Rounds of re-running what was reported not sent, at most. */
	maxRounds?: number;
}

export interface SendTally {
	destinations: number;
	/** Batches the sandbox accepted. */
	batches: number;
	rounds: number;
	accepted: number;
	unknown: number;
	notSent: number;
	acceptedTwice: number;
	lost: number;
	/** Destinations reported not sent that the sandbox had taken: a resend would repeat them. */
	misreported: number;
}

type Claim = 'accepted' | 'unknown' | 'not sent';

export async function runSendCampaign(
	sandbox: Sandbox,
	campaign: SendCampaign,
): Promise<SendTally> {
	const claims = new Map<string, Claim>();
	let remaining = [...campaign.destinations];
	let rounds = 0;
	const batchesBefore = sandbox.received().batches.length;
	for (; remaining.length > 0 && rounds < (campaign.maxRounds ?? 60); rounds++) {
		const round = await sendRound(sandbox, campaign, remaining);
		for (const msisdn of remaining) {
			const claim = round.get(msisdn);
			if (claim) claims.set(msisdn, claim);
			else claims.delete(msisdn); // the node said nothing of it this round
		}
		remaining = remaining.filter((msisdn) => round.get(msisdn) === 'not sent');
	}
	const tally = reconcile(sandbox, campaign.destinations, claims);
	return { ...tally, rounds, batches: sandbox.received().batches.length - batchesBefore };
}

/** One run of the workflow over the destinations still to send; what the node said of each. */
async function sendRound(
	sandbox: Sandbox,
	campaign: SendCampaign,
	destinations: readonly string[],
): Promise<Map<string, Claim>> {
	const perItem = campaign.shape === 'per item';
	const list = perItem
		? chunks(destinations, campaign.destinationsPerItem ?? 1).map((group) => ({
				msisdn: group.join(','),
				name: `n${group[0].slice(-4)}`,
			}))
		: [{ msisdn: destinations.join(',') }];
	const node = send(
		{
			destinations: '={{ $json.msisdn }}',
			message: perItem ? '=Hello {{ $json.name }}' : 'Hello everyone',
			sendOptions: perItem ? {} : { maxPerRequest: 100 },
		},
		{ continueOnFail: campaign.continueOnFail },
	);
	const run = await runWorkflow({
		...line(trigger(), items(list), node),
		credentials: credentialsFor(sandbox, { baseUrl: campaign.baseUrl }),
	});
	const error = errorOf(run, node.name);
	if (error) return claimsOfError(error as unknown as { context?: IDataObject });
	return claimsOfItems(outputOf(run, node.name));
}

/** Continue On Fail, or a run that succeeded: each output item says what became of its destinations. */
function claimsOfItems(output: INodeExecutionData[]): Map<string, Claim> {
	const claims = new Map<string, Claim>();
	for (const { json } of output) {
		const claim = claimOf(json.send_outcome);
		for (const msisdn of list(json.destinations)) claims.set(msisdn, claim);
		for (const msisdn of list(json.not_sent)) claims.set(msisdn, 'not sent');
	}
	return claims;
}

/**
 * A run stopped by the error: the error's context accounts for every item (see send.ts). A
 * destination it does not name is not resent (that would risk a repeat) and has no claim: it
 * counts as lost unless the sandbox took it.
 */
function claimsOfError(error: { context?: IDataObject }): Map<string, Claim> {
	const claims = new Map<string, Claim>();
	for (const entry of (error.context?.items ?? []) as IDataObject[]) {
		const claim = claimOf(entry.outcome);
		for (const msisdn of list(entry.destinations)) claims.set(msisdn, claim);
	}
	return claims;
}

/** An outcome the node reported; anything but accepted or unknown (or none) counts as not sent. */
function claimOf(outcome: unknown): Claim {
	return outcome === 'accepted' || outcome === 'unknown' ? outcome : 'not sent';
}

function chunks(values: readonly string[], size: number): string[][] {
	const result: string[][] = [];
	for (let at = 0; at < values.length; at += size) result.push(values.slice(at, at + size));
	return result;
}

function list(value: unknown): string[] {
	if (Array.isArray(value)) return value.map(String);
	if (typeof value === 'string' && value !== '') return value.split(',');
	return [];
}

function reconcile(
	sandbox: Sandbox,
	destinations: readonly string[],
	claims: ReadonlyMap<string, Claim>,
): Omit<SendTally, 'rounds' | 'batches'> {
	const taken = new Map(sandbox.received().destinations.map((d) => [d.msisdn, d.accepted]));
	const tally = {
		destinations: destinations.length,
		accepted: 0,
		unknown: 0,
		notSent: 0,
		acceptedTwice: 0,
		lost: 0,
		misreported: 0,
	};
	for (const msisdn of destinations) {
		const times = taken.get(msisdn) ?? 0;
		const claim = claims.get(msisdn);
		if (times > 1) tally.acceptedTwice++;
		if (claim === 'accepted') tally.accepted++;
		if (claim === 'unknown') tally.unknown++;
		if (claim === 'not sent') tally.notSent++;
		if (times === 0 && (claim === undefined || claim === 'accepted')) tally.lost++;
		if (times > 0 && claim === 'not sent') tally.misreported++;
	}
	return tally;
}
