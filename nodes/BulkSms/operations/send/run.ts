/**
 * Sends the planned requests with bounded concurrency. Every request's result is kept in its
 * place, so the output keeps the input order however the answers arrive.
 */
import { NodeApiError, type IExecuteFunctions, type NodeOperationError } from 'n8n-workflow';

import type { SendResponse } from '../../../shared/domain/responses';
import { asNodeError } from '../../../shared/items';
import {
	forEachConcurrently,
	RequestPace,
	sendBatch,
	SendOutcomeUnknownError,
	type AccountOf,
} from '../../../shared/transport';
import type { Send } from './model';
import { itemOf } from './plan';

export type Failure = NodeApiError | NodeOperationError;

/**
 * What became of one request. `not accepted`: the service refused it (nothing taken);
 * `unknown`: it may have been taken; `not sent`: it certainly was not; `not attempted`: it
 * never started because an earlier request failed.
 */
export type RequestResult =
	| { outcome: 'accepted'; response: SendResponse }
	| {
			outcome: 'not accepted' | 'unknown' | 'not sent';
			response?: SendResponse;
			failure: Failure;
	  }
	| { outcome: 'not attempted' };

export interface SendResults {
	send: Send;
	/** One per chunk, in chunk order. */
	results: RequestResult[];
}

interface Request {
	send: Send;
	index: number;
	results: RequestResult[];
}

/**
 * After a failure no new request starts: of the whole run, or under Continue On Fail of the
 * same send (its later chunks would most likely fail alike, e.g. for lack of credits).
 */
export async function sendAll(
	this: IExecuteFunctions,
	sends: readonly Send[],
	concurrency: number,
	accountOf: AccountOf,
): Promise<SendResults[]> {
	const all = sends.map((send) => ({
		send,
		results: send.chunks.map((): RequestResult => ({ outcome: 'not attempted' })),
	}));
	const queue: Request[] = all.flatMap(({ send, results }) =>
		send.chunks.map((_, index) => ({ send, index, results })),
	);
	const pace = new RequestPace(); // one per run: a 429 or 503 holds every request in flight
	const failedSends = new Set<Send>();
	const continueOnFail = this.continueOnFail();
	let stopped = false;
	const sendOne = async (request: Request) => {
		if (failedSends.has(request.send)) return;
		const result = await sendChunk.call(this, request, pace, accountOf);
		request.results[request.index] = result;
		if (result.outcome === 'accepted') return;
		failedSends.add(request.send);
		if (!continueOnFail) stopped = true;
	};
	await forEachConcurrently(queue, concurrency, sendOne, () => stopped);
	return all;
}

/** One request; a failure is returned, not thrown, so that every other request is accounted for. */
async function sendChunk(
	this: IExecuteFunctions,
	{ send, index }: Request,
	pace: RequestPace,
	accountOf: AccountOf,
): Promise<RequestResult> {
	const destinations = send.chunks[index];
	const itemIndex = itemOf(send, destinations[0]);
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
