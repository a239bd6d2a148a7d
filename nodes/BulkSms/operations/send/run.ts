/**
 * Sends the planned requests with bounded concurrency. Every request's result is kept in its
 * place, so the output keeps the input order however the answers arrive. With Send Each Number
 * Once, each request's numbers are claimed in the record first (claims.ts) and those an earlier
 * run sent are held back; with a Sending Speed Limit, each request waits for its turn. After
 * Stop, no request starts.
 */
import { NodeApiError, NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';

import type { SendResponse } from '../../../shared/domain/responses';
import { asNodeError } from '../../../shared/items';
import {
	forEachConcurrently,
	RequestPace,
	sendBatch,
	SendOutcomeUnknownError,
	type AccountOf,
} from '../../../shared/transport';
import { ClaimWindows, entriesOf, type NumberEntry, type RequestNumbers } from './claims';
import {
	itemOf,
	type Plan,
	type RequestResult,
	type Send,
	type SendResults,
	type SentBefore,
} from './model';
import { Progress } from './progress';
import { isLeftOut } from './refusals';
import { RecordTurns, SendRecord } from './record';
import { sendKeyOf } from './recordKeys';
import { SpeedLimit } from './speedLimit';

interface Request {
	send: Send;
	index: number;
	results: RequestResult[];
	/** Its numbers and the send they get, as the record knows them. */
	numbers: RequestNumbers;
}

/** What the run shares between its requests. */
interface Run {
	pace: RequestPace;
	speedLimit?: SpeedLimit;
	windows?: ClaimWindows;
	resendUnknown: boolean;
	progress: Progress;
	stopped: () => boolean;
}

/**
 * After a failure no new request starts: of the whole run, or under Continue On Fail of the
 * same send (its later chunks would most likely fail alike, e.g. for lack of credits).
 */
export async function sendAll(
	this: IExecuteFunctions,
	plan: Plan,
	accountOf: AccountOf,
	turns: RecordTurns,
): Promise<SendResults[]> {
	const { settings } = plan;
	const all = plan.sends.map((send) => ({
		send,
		results: send.chunks.map((): RequestResult => ({ outcome: 'not attempted' })),
	}));
	const queue: Request[] = all.flatMap(({ send, results }) => {
		const sendKey = settings.once ? sendKeyOf(send.campaign, send.message) : '';
		return send.chunks.map((chunk, index) => ({
			send,
			index,
			results,
			numbers: { send: sendKey, numbers: chunk },
		}));
	});
	const record = settings.once ? await openRecord.call(this, plan, turns) : undefined;
	const cancel = this.getExecutionCancelSignal?.();
	const failedSends = new Set<Send>();
	const continueOnFail = this.continueOnFail();
	let failed = false;
	const run: Run = {
		pace: new RequestPace(), // one per run: a 429 or 503 holds every request in flight
		speedLimit: settings.speedLimit && new SpeedLimit(settings.speedLimit),
		windows:
			record &&
			new ClaimWindows(
				record,
				queue.map((r) => r.numbers),
				settings.concurrency,
			),
		resendUnknown: settings.resendUnknown,
		progress: new Progress(
			this,
			queue.reduce((sum, r) => sum + r.send.chunks[r.index].length, 0),
		),
		stopped: () => failed || cancel?.aborted === true,
	};
	const settled = new Set<number>();
	const sendOne = async (position: number) => {
		const request = queue[position];
		if (failedSends.has(request.send) || run.stopped()) return;
		const result = await settle.call(this, request, position, run, accountOf);
		if (result.outcome === 'not attempted') return;
		settled.add(position);
		request.results[request.index] = result;
		run.progress.add(result);
		if (!isFailure(result)) return;
		failedSends.add(request.send);
		if (!continueOnFail) failed = true;
	};
	const positions = queue.map((_, position) => position);
	await forEachConcurrently(positions, settings.concurrency, sendOne, run.stopped);
	if (run.windows) {
		const reached = plan.failures.length === 0 && all.every(reachedEveryone);
		for (const problem of await run.windows.finish(settled, reached)) {
			this.logger.warn(`Bulk SMS Send could not write its record of accepted sends: ${problem}`);
		}
	}
	run.progress.done();
	return all;
}

async function openRecord(
	this: IExecuteFunctions,
	plan: Plan,
	turns: RecordTurns,
): Promise<SendRecord> {
	const mode = this.getMode();
	try {
		return await SendRecord.open(this, turns, {
			resumeWithinHours: plan.settings.resumeWithinHours,
			retry: mode === 'retry',
			endsCampaign: mode !== 'manual' && mode !== 'retry',
		});
	} catch (error) {
		throw recordUnwritten.call(this, error as Error);
	}
}

/**
 * One request: its numbers claimed (those an earlier run sent held back), its turn under the
 * speed limit, then the request. A failure is returned, not thrown, so that every other request
 * is accounted for.
 */
async function settle(
	this: IExecuteFunctions,
	request: Request,
	position: number,
	run: Run,
	accountOf: AccountOf,
): Promise<RequestResult> {
	const { send, index } = request;
	const chunk = send.chunks[index];
	const itemIndex = itemOf(send, chunk[0]);
	let claimed: Claimed = { sending: [], sentBefore: [] };
	if (run.windows) {
		try {
			claimed = await claim(request, position, run.windows, run.resendUnknown);
		} catch (error) {
			const failure = recordUnwritten.call(this, error as Error, itemIndex);
			return { outcome: 'not sent', failure, sent: [...chunk], sentBefore: [] };
		}
	}
	const { sending, sentBefore } = claimed;
	const destinations = run.windows ? sending.map((entry) => entry.msisdn) : chunk;
	if (destinations.length === 0) return { outcome: 'sent before', sentBefore };
	// Stopped while waiting: its claims are given back with the other requests never sent.
	const turn = run.speedLimit?.turnFor(destinations.length, run.stopped);
	if ((turn && !(await turn)) || run.stopped()) return { outcome: 'not attempted' };
	const result = await sendChunk.call(this, send, destinations, itemIndex, run.pace, accountOf);
	if (result.outcome === 'accepted') run.windows?.noteAccepted(sending);
	else {
		run.windows?.noteAnswered();
		// Refused or certainly not sent: a later run may send them. Unknown: they stay claimed.
		if (result.outcome !== 'unknown') run.windows?.release(sending);
	}
	return { ...result, sent: destinations, sentBefore };
}

interface Claimed {
	sending: NumberEntry[];
	sentBefore: SentBefore[];
}

/**
 * A request's numbers once its window is claimed: those an earlier run sent are held back
 * (those in doubt too, unless Resend Unknown sends them again), the others go.
 */
async function claim(
	request: Request,
	position: number,
	windows: ClaimWindows,
	resendUnknown: boolean,
): Promise<Claimed> {
	const earlier = await windows.earlier(position);
	const claimed: Claimed = { sending: [], sentBefore: [] };
	for (const entry of entriesOf(request.numbers)) {
		const accepted = earlier.get(entry.claim);
		if (accepted === undefined || (!accepted && resendUnknown)) claimed.sending.push(entry);
		else claimed.sentBefore.push({ msisdn: entry.msisdn, accepted });
	}
	return claimed;
}

type Answered = Exclude<RequestResult, { outcome: 'sent before' | 'not attempted' }>;
type Unsized<T> = T extends unknown ? Omit<T, 'sent' | 'sentBefore'> : never;

async function sendChunk(
	this: IExecuteFunctions,
	send: Send,
	destinations: string[],
	itemIndex: number,
	pace: RequestPace,
	accountOf: AccountOf,
): Promise<Unsized<Answered>> {
	try {
		const response = await sendBatch.call(
			this,
			{ destinations, message: send.message, validity_period: send.validity?.validity_period },
			{ format: send.format, itemIndex, pace, account: await accountOf(itemIndex) },
		);
		if (response.accepted) return { outcome: 'accepted', response };
		return refused.call(this, response, itemIndex);
	} catch (error) {
		const outcome = error instanceof SendOutcomeUnknownError ? 'unknown' : 'not sent';
		return { outcome, failure: asNodeError(this, error, itemIndex) };
	}
}

/** The record could not be read or written: what depends on it is not sent. */
function recordUnwritten(
	this: IExecuteFunctions,
	error: Error,
	itemIndex?: number,
): NodeOperationError {
	return new NodeOperationError(
		this.getNode(),
		`Send's record of accepted sends could not be written, so nothing was sent: ${error.message}`,
		{
			description:
				"Send claims each number in n8n's database before sending it, so that nothing is sent twice. Check that n8n's database is reachable and has room, then run again; or turn off Send Each Number Once.",
			itemIndex,
		},
	);
}

/**
 * accepted = false is a refusal, unless the answer carries a batch id anyway: then the
 * service may have taken the batch, and calling it "not sent" could lead to a second send.
 */
function refused(this: IExecuteFunctions, response: SendResponse, itemIndex: number) {
	const reason = response.error || 'no reason given';
	if (response.batch_id === undefined) {
		const failure = new NodeApiError(
			this.getNode(),
			{ accepted: false },
			{ message: `The service did not accept the batch: ${reason}`, itemIndex },
		);
		return { outcome: 'not accepted' as const, response, failure };
	}
	const failure = new NodeApiError(
		this.getNode(),
		{ accepted: false, batch_id: response.batch_id },
		{
			message: `The service refused the batch but returned batch ${response.batch_id}: it may have been taken`,
			description: `It said: ${reason}. Check batch ${response.batch_id} (Get Status) before resending these destinations; they were not sent again.`,
			itemIndex,
		},
	);
	return { outcome: 'unknown' as const, response, failure };
}

export function isFailure(
	result: RequestResult,
): result is Extract<RequestResult, { failure: unknown }> {
	return 'failure' in result;
}

/**
 * Whether every number given reached its person, now or in an earlier run: then a run in
 * production ends the campaign (record.ts). Numbers left out on purpose (opted out, repeats) count
 * as done; a skipped, failed or unknown one leaves the campaign open.
 */
function reachedEveryone({ send, results }: SendResults): boolean {
	if (!send.skipped.every(isLeftOut)) return false;
	return results.every(
		(result) =>
			(result.outcome === 'accepted' || result.outcome === 'sent before') &&
			result.sentBefore.every((held) => held.accepted),
	);
}
