/**
 * Send's record of what it handed to the service, so that nothing is sent twice in a campaign
 * (campaign.ts says which runs make one): the one door the run uses. It opens the record for a
 * run, claims each request's numbers before the request goes out (claims.ts), takes the service's
 * answers, and at the run's end keeps the campaign or takes it out (store.ts).
 */
import { NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';

import { StoreQueue } from '../../../../shared/deduplicationStore';
import { apart, campaignOf, SET_APART_KEY, type Campaign, type RunStart } from './campaign';
import { Claims, type Claimed, type RequestNumbers } from './claims';
import { sendKeyOf } from './facts';
import { LiveSends } from './live';
import { RECORD_ENTRIES, RecordStore } from './store';

export type { Campaign } from './campaign';
export type { Answer, Claimed, HeldBack } from './claims';
export type { UnknownCause } from './facts';

/** What one n8n process keeps for Send's records: the store's queue and the numbers on their way. */
export class SendProcess {
	readonly queue = new StoreQueue();
	readonly live = new LiveSends();
}

export interface RecordSettings {
	concurrency: number;
	resumeWithinHours: number;
	resendUnknown: boolean;
}

export class SendRecord {
	private constructor(
		private readonly store: RecordStore,
		private readonly claims: Claims,
		private readonly campaigns: Map<string, Campaign>,
		/** A Retry keeps what it resumed: n8n lets the user retry the same execution again. */
		private readonly retry: boolean,
	) {}

	/**
	 * Opens the record for a run's sends: their campaigns, then (except for a Retry, which resumes
	 * whatever the record holds) the record forgotten if no run kept anything in it lately.
	 */
	static async open(
		context: IExecuteFunctions,
		/** The Campaign Key of each send (empty when none is given). */
		keys: readonly string[],
		settings: RecordSettings,
		process: SendProcess,
		clock: () => number = Date.now,
	): Promise<SendRecord> {
		const start = runStartOf(context);
		const campaigns = campaignsOf(context, start, keys);
		const store = new RecordStore(context, process.queue, settings.resumeWithinHours, clock);
		await openCampaigns(context, start, store, campaigns);
		const claims = new Claims(
			store,
			process.live,
			context.getExecutionId(),
			settings.concurrency,
			settings.resendUnknown,
			await store.size(),
		);
		return new SendRecord(store, claims, campaigns, start.mode === 'retry');
	}

	/** The campaign of a send with this Campaign Key (empty when none is given). */
	campaignOf(key: string): Campaign {
		return this.campaigns.get(key) as Campaign;
	}

	/** A request's numbers as the record knows them: the same campaign and text is the same send. */
	requestOf(key: string, text: string, numbers: readonly string[]): RequestNumbers {
		return { send: sendKeyOf(this.campaignOf(key).id, text), numbers };
	}

	/** Claims a request's numbers before it goes out; those sent before are held back. */
	async claim(request: RequestNumbers): Promise<Claimed> {
		return await this.claims.claim(request);
	}

	/**
	 * What the run tells the user of the record: how many of the oldest values n8n dropped because
	 * the record was full (a resume of their campaigns could send those numbers again).
	 */
	get report(): { dropped: number } {
		return { dropped: Math.max(0, this.claims.values - RECORD_ENTRIES) };
	}

	/**
	 * Writes every answer given, then takes the campaign out when a production run (not a Retry)
	 * ended without failing: nobody resumes it, since n8n retries only a failed execution. Otherwise
	 * the campaign is kept. Never throws: what could not be written is returned.
	 */
	async finish(endedWell: boolean): Promise<string[]> {
		const failed = await this.claims.finish();
		if (failed) return [failed.message];
		const ownCampaign = [...this.campaigns.values()].every((campaign) => campaign.kind === 'run');
		try {
			if (endedWell && ownCampaign && !this.retry) await this.store.takeOut();
			else await this.store.keep();
		} catch (error) {
			return [(error as Error).message];
		}
		return [];
	}
}

/** What n8n says about the run; custom data is read through `$execution`, which n8n 1.x has too. */
function runStartOf(context: IExecuteFunctions): RunStart {
	let setApart: unknown;
	try {
		setApart = context.getWorkflowDataProxy(0).$execution?.customData?.get(SET_APART_KEY);
	} catch {
		// No custom data here (a context that has none): nothing was set apart.
	}
	return {
		mode: context.getMode(),
		executionId: context.getExecutionId(),
		context: context.getExecutionContext?.(),
		setApart: typeof setApart === 'string' ? setApart : undefined,
	};
}

/**
 * Opens the record. A production run's campaign is new: if the record says another run opened it
 * (the same trigger started two runs in one millisecond), this run sets its own apart and names it
 * in the execution's custom data for its Retries.
 */
async function openCampaigns(
	context: IExecuteFunctions,
	start: RunStart,
	store: RecordStore,
	campaigns: Map<string, Campaign>,
): Promise<void> {
	const retry = start.mode === 'retry';
	const fresh = retry ? [] : [...campaigns.values()].filter((c) => c.kind === 'run');
	const taken = await store.open(
		fresh.map((campaign) => campaign.id),
		retry,
	);
	for (const [key, campaign] of campaigns) {
		if (!taken.has(campaign.id)) continue;
		const own = apart(campaign, start.executionId);
		campaigns.set(key, own);
		context.getWorkflowDataProxy(0).$execution.customData.set(SET_APART_KEY, own.id);
	}
}

function campaignsOf(
	context: IExecuteFunctions,
	start: RunStart,
	keys: readonly string[],
): Map<string, Campaign> {
	const campaigns = new Map<string, Campaign>();
	for (const key of new Set(keys)) {
		if (campaigns.has(key)) continue;
		const campaign = campaignOf(start, key);
		if ('unknown' in campaign) throw unknownCampaign(context, campaign.unknown);
		campaigns.set(key, campaign);
	}
	return campaigns;
}

function unknownCampaign(context: IExecuteFunctions, why: string): NodeOperationError {
	return new NodeOperationError(
		context.getNode(),
		`Send cannot tell which numbers the execution this Retry continues sent, so it sent nothing: ${why}`,
		{
			description:
				"Sending now could reach someone a second time. Check what that execution sent (n8n's log has Send's progress lines), then run the rest with a Campaign Key of its own, or turn off Send Each Number Once to send to everyone again.",
		},
	);
}
