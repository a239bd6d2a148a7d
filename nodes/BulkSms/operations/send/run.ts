/**
 * Sends the planned requests with bounded concurrency. Every request's result is kept in its
 * place, so the output keeps the input order however the answers arrive. With Send Each Number
 * Once, each request's numbers are claimed in the record first (record/) and those the campaign
 * sent before are held back; with a Sending Speed Limit, each request waits for its turn. After
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
import {
	itemOf,
	type AttemptedRequest,
	type HeldNumber,
	type Plan,
	type RequestResult,
	type Send,
	type SendResults,
} from './model';
import { Progress } from './progress';
import {
	laterStepOf,
	SendRecord,
	type Answer,
	type HeldNumberState,
	type RecordRequest,
	type SendProcess,
} from './record';
import { SpeedLimit } from './speedLimit';

interface Request {
	send: Send;
	index: number;
	results: RequestResult[];
	/** Its place in the run's queue, as the record counts requests. */
	queued: number;
	owner: SendResults;
}

/** What the run shares between its requests. */
interface Run {
	pace: RequestPace;
	speedLimit?: SpeedLimit;
	record?: SendRecord;
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
	process: SendProcess,
): Promise<{ sent: SendResults[]; record?: SendRecord }> {
	const { settings } = plan;
	const all: SendResults[] = plan.sends.map((send) => ({
		send,
		results: send.chunks.map((): RequestResult => ({ outcome: 'not attempted' })),
	}));
	const queue: Request[] = all.flatMap((owner) =>
		owner.send.chunks.map((_, index) => ({ ...owner, owner, index, queued: 0 })),
	);
	queue.forEach((request, position) => (request.queued = position));
	const requests = queue.map(recordRequestOf);
	const laterStep = laterStepOf(this);
	if (laterStep !== undefined) {
		holdForLaterStep.call(this, queue, SendRecord.forLaterStep(this, requests, process), laterStep);
		return { sent: all };
	}
	const record = settings.once ? await openRecord.call(this, plan, requests, process) : undefined;
	if (record)
		for (const request of queue) request.owner.campaign ??= record.campaignAt(request.queued);
	const cancel = this.getExecutionCancelSignal?.();
	const failedSends = new Set<Send>();
	const continueOnFail = this.continueOnFail();
	let failed = false;
	const run: Run = {
		pace: new RequestPace(), // one per run: a 429 or 503 holds every request in flight
		speedLimit: settings.speedLimit && new SpeedLimit(settings.speedLimit),
		record,
		progress: new Progress(
			this,
			queue.reduce((sum, r) => sum + r.send.chunks[r.index].length, 0),
		),
		stopped: () => failed || cancel?.aborted === true,
	};
	const sendOne = async (position: number) => {
		const request = queue[position];
		if (run.stopped()) return;
		if (failedSends.has(request.send)) return record?.skip(request.queued);
		const result = await settle.call(this, request, run, accountOf);
		if (result.outcome === 'not attempted') return;
		request.results[request.index] = result;
		run.progress.add(result);
		if (!isFailure(result)) return;
		failedSends.add(request.send);
		if (!continueOnFail) failed = true;
	};
	const positions = queue.map((_, position) => position);
	await forEachConcurrently(positions, settings.concurrency, sendOne, run.stopped);
	if (record) {
		const endedWell = !failed && cancel?.aborted !== true;
		// A run that fails for a mistake in Destinations still sent all it could: kept for its Retries.
		for (const problem of await record.finish(endedWell, plan.mistakes.length > 0)) {
			this.logger.warn(`Bulk SMS Send could not write its record of accepted sends: ${problem}`);
		}
	}
	run.progress.done();
	return { sent: all, record };
}

/** What the record knows of a request: its Campaign Key, text, numbers and row. */
function recordRequestOf({ send, index }: Request): RecordRequest {
	const numbers = send.chunks[index];
	return { key: send.campaign, text: send.message, numbers, item: itemOf(send, numbers[0]) };
}

/**
 * n8n runs Send only on the way to a later step the user executed in the editor: nothing goes
 * out; a request this process saw accepted says its batch, so that the later step can read it.
 */
function holdForLaterStep(
	this: IExecuteFunctions,
	queue: readonly Request[],
	held: readonly HeldNumberState[],
	laterStep: string,
): void {
	for (const request of queue) {
		const chunk = request.send.chunks[request.index];
		const heldBack = held[request.queued];
		request.results[request.index] = {
			outcome: 'held back',
			held: chunk.map((msisdn) => ({ msisdn, ...heldBack, laterStep })),
		};
	}
}

async function openRecord(
	this: IExecuteFunctions,
	plan: Plan,
	requests: readonly RecordRequest[],
	process: SendProcess,
): Promise<SendRecord> {
	const { concurrency, resumeWithinHours, resendUnknown } = plan.settings;
	const settings = { concurrency, resumeWithinHours, resendUnknown };
	const record = await SendRecord.open(this, requests, settings, process).catch((error: Error) =>
		error instanceof NodeOperationError ? error : recordUnwritten.call(this, error),
	);
	if (record instanceof NodeOperationError) throw record;
	return record;
}

/**
 * One request: its numbers claimed (those the campaign sent before held back), its turn under the
 * speed limit, then the request. A failure is returned, not thrown, so that every other request
 * is accounted for.
 */
async function settle(
	this: IExecuteFunctions,
	request: Request,
	run: Run,
	accountOf: AccountOf,
): Promise<RequestResult> {
	const { send, index } = request;
	const chunk = send.chunks[index];
	const itemIndex = itemOf(send, chunk[0]);
	let answered: ((answer: Answer) => void) | undefined;
	if (run.record) {
		let decision;
		try {
			decision = await run.record.decide(request.queued);
		} catch (error) {
			const failure = recordUnwritten.call(this, error as Error, itemIndex);
			return { outcome: 'not sent', failure, sent: [...chunk], held: [] };
		}
		if ('held' in decision) {
			const batchId = decision.held.batchId ?? batchOfRow.call(this, itemIndex);
			const held = { ...decision.held, batchId, batchFromRow: !decision.held.batchId && !!batchId };
			return {
				outcome: 'held back',
				held: chunk.map((msisdn): HeldNumber => ({ msisdn, ...held })),
			};
		}
		answered = decision.answered;
	}
	// Stopped while waiting: its claim is given back, as for the requests never sent.
	const turn = run.speedLimit?.turnFor(chunk.length, run.stopped);
	if ((turn && !(await turn)) || run.stopped()) {
		answered?.({ outcome: 'released' });
		return { outcome: 'not attempted' };
	}
	const result = await sendChunk.call(this, send, chunk, itemIndex, run.pace, accountOf);
	answered?.(answerOf(result));
	return { ...result, sent: chunk, held: [] };
}

/** The batch id a row already holds (a sheet written back after an earlier run), if any. */
function batchOfRow(this: IExecuteFunctions, itemIndex: number): string | undefined {
	const value = this.getInputData()[itemIndex]?.json.batch_id;
	const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
	return typeof text === 'string' && /^\d{1,19}$/.test(text) ? text : undefined;
}

/** What the record keeps of a request's result. */
function answerOf(result: Unsized<AttemptedRequest>): Answer {
	if (result.outcome === 'accepted')
		return { outcome: 'accepted', batchId: result.response.batch_id };
	if (result.outcome !== 'unknown') return { outcome: 'released' };
	if (result.response?.batch_id !== undefined)
		return { outcome: 'unknown', cause: 'refusedWithBatch' };
	const answered = 'httpCode' in result.failure && Boolean(result.failure.httpCode);
	return { outcome: 'unknown', cause: answered ? 'answer' : 'connection' };
}

type Unsized<T> = T extends unknown ? Omit<T, 'sent' | 'held'> : never;

async function sendChunk(
	this: IExecuteFunctions,
	send: Send,
	destinations: string[],
	itemIndex: number,
	pace: RequestPace,
	accountOf: AccountOf,
): Promise<Unsized<AttemptedRequest>> {
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
