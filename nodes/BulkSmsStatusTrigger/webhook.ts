import { createHash, timingSafeEqual } from 'crypto';
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { readBatchIdList } from '../shared/domain/campaign';
import type { RawReport } from '../shared/domain/responses';
import { isFinal } from '../shared/domain/status';
import { handoverItems } from './handover';
import type { KnownReports } from './knownReports';
import { DEFAULT_MEMORY, sift } from './memory';
import { memoryLimit, MEMORY_KEY, triggerOf } from './parameters';
import { readCallback } from './read';
import { mergedMemory, readStored, storedLookup } from './storedMemory';

const REALM = 'Basic realm="Bulk SMS callbacks"';

/**
 * One callback: check the caller, read the reports, tell the news from repeats, filter, emit.
 * Answers 200 at once (onReceived); 401 and 400 start nothing.
 */
export async function receiveCallback(
	this: IWebhookFunctions,
	known: KnownReports,
): Promise<IWebhookResponseData> {
	const refusal = authenticationProblem.call(this);
	if (refusal) {
		this.logger.warn(`Bulk SMS Status Trigger refused a callback: ${refusal}`);
		return answer.call(this, 401, { error: refusal }, { 'WWW-Authenticate': REALM });
	}
	const reading = readCallback({ body: await rawBody.call(this), query: queryOf.call(this) });
	if ('problem' in reading) {
		// The reason names fields and kinds of values, never their content.
		this.logger.warn(
			`Bulk SMS Status Trigger refused a callback that is not a delivery report: ${reading.problem}`,
		);
		return answer.call(this, 400, { error: `Not a delivery report: ${reading.problem}` });
	}
	return await handOver.call(this, known, reading.reports);
}

/**
 * The reports' fate, decided with no await from the look-up to the hold, so that copies of a
 * callback arriving together in this process are told apart (knownReports.ts). A callback with
 * nothing to emit is answered here; one with news goes in an execution, which remembers what it
 * carries (execute.ts): its own, or one that another callback starts (gathering.ts).
 */
async function handOver(
	this: IWebhookFunctions,
	known: KnownReports,
	reports: RawReport[],
): Promise<IWebhookResponseData> {
	const limit = memoryLimit(this.getNodeParameter('options.memory', DEFAULT_MEMORY));
	const memory = known.of(triggerOf(this), limit);
	const staticData = this.getWorkflowStaticData('node');
	const stored = readStored(staticData[MEMORY_KEY]);
	const storedHas = storedLookup(stored, 2 * reports.length);
	const sifted = sift(reports, (key) => memory.knows(key) || storedHas(key));
	const wanted = sifted.fresh.filter(reportFilter.call(this));
	const counts = { received: reports.length, repeated: sifted.repeated, late: sifted.late };
	if (wanted.length === 0) {
		// No execution starts, so n8n saves this call's static data: only when it learned
		// something, so that a mere repeat never writes over what an execution is about to save.
		if (sifted.keys.length > 0) {
			memory.learn(sifted.keys);
			staticData[MEMORY_KEY] = mergedMemory(stored, memory, limit);
		}
		return answer.call(this, 200, { ...counts, emitted: 0 });
	}
	memory.hold(sifted.keys);
	const turn = await memory.gathering.join({ items: handoverItems(wanted, sifted.keys) });
	if ('riddenWith' in turn) {
		const { started } = turn.riddenWith;
		memory.release(sifted.keys, started);
		if (started) return answer.call(this, 200, { ...counts, emitted: wanted.length });
		return answer.call(this, 503, { error: 'The workflow could not be started: send it again' });
	}
	whenAnswered(this.getResponseObject(), (started) => {
		memory.release(sifted.keys, started);
		turn.handedOver(started);
	});
	return { workflowData: [turn.carries.flatMap((parcel) => parcel.items)] };
}

/**
 * Tells whether n8n answered this call 2xx, which it does once the execution it started has
 * started (or been queued); any other end (an error answer, the caller gone) is false.
 */
function whenAnswered(response: Response, done: (started: boolean) => void): void {
	let settled = false;
	const settle = (started: boolean) => {
		if (settled) return;
		settled = true;
		done(started);
	};
	response.once('finish', () => settle(response.statusCode >= 200 && response.statusCode < 300));
	response.once('close', () => settle(false));
}

type Response = ReturnType<IWebhookFunctions['getResponseObject']>;

// ---------------------------------------------------------------- authentication

/** Why the caller is refused, or undefined when it proved itself as configured. */
function authenticationProblem(this: IWebhookFunctions): string | undefined {
	const method = this.getNodeParameter('authentication', 'token') as string;
	if (method === 'none') return undefined;
	if (method === 'basicAuth') {
		const expected = `${this.getNodeParameter('username', '') as string}:${this.getNodeParameter('password', '') as string}`;
		if (expected === ':') return 'the trigger has no username and password set';
		const given = basicCredentials(this.getHeaderData().authorization);
		if (given === undefined) return 'HTTP Basic credentials are required';
		return sameSecret(given, expected) ? undefined : 'wrong username or password';
	}
	const secret = this.getNodeParameter('secret', '') as string;
	if (secret === '') return 'the trigger has no secret set';
	const token = (this.getQueryData() as IDataObject).token;
	if (typeof token !== 'string' || token === '') return 'the callback URL has no ?token=';
	return sameSecret(token, secret) ? undefined : 'wrong token';
}

/** Compared in constant time (over digests, so a length difference says nothing either). */
function sameSecret(given: string, expected: string): boolean {
	const digest = (text: string) => createHash('sha256').update(text).digest();
	return timingSafeEqual(digest(given), digest(expected));
}

function basicCredentials(header: string | undefined): string | undefined {
	const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
	if (!match) return undefined;
	const decoded = Buffer.from(match[1], 'base64').toString('utf8');
	return decoded.includes(':') ? decoded : undefined;
}

// ---------------------------------------------------------------- request and answer

/**
 * The body as received. n8n keeps the raw bytes beside its own parse (rawBody, read for every
 * body it does not hand out as multipart); its JSON parse would round 19-digit ids, so the
 * parsed body is only a fallback, where readDeliveryReport refuses rounded ids.
 */
async function rawBody(this: IWebhookFunctions): Promise<string> {
	const request = this.getRequestObject();
	if (request.rawBody === undefined && typeof request.readRawBody === 'function') {
		await request.readRawBody();
	}
	if (Buffer.isBuffer(request.rawBody)) return request.rawBody.toString('utf8');
	const body = this.getBodyData();
	if (typeof body === 'string') return body;
	return body && Object.keys(body).length > 0 ? JSON.stringify(body) : '';
}

function queryOf(this: IWebhookFunctions): Record<string, unknown> {
	// The secret is no report field; dropped so that nothing downstream ever sees it.
	const fields: Record<string, unknown> = { ...(this.getQueryData() as IDataObject) };
	delete fields.token;
	return fields;
}

/** Written directly, so that 401 and 400 start no execution; n8n then sends nothing more. */
function answer(
	this: IWebhookFunctions,
	status: number,
	body: IDataObject,
	headers: Record<string, string> = {},
): IWebhookResponseData {
	const response = this.getResponseObject();
	response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', ...headers });
	response.end(JSON.stringify(body));
	return { noWebhookResponse: true };
}

// ---------------------------------------------------------------- filters and settings

function reportFilter(this: IWebhookFunctions): (report: RawReport) => boolean {
	const emit = this.getNodeParameter('emit', 'final') as string;
	const statuses = new Set(this.getNodeParameter('statuses', []) as string[]);
	const batches = batchFilter.call(this);
	return (report) => {
		// report.batch_id is already in the service's form (read by readDeliveryReport).
		if (batches && !batches.has(report.batch_id)) return false;
		if (emit === 'final') return isFinal(report.status);
		if (emit === 'statuses') return statuses.has(report.status);
		return true;
	};
}

/** The batch ids to keep, in the service's form; undefined keeps every batch. */
function batchFilter(this: IWebhookFunctions): Set<string> | undefined {
	const read = readBatchIdList(this.getNodeParameter('batchIds', '') as unknown);
	if ('problem' in read) {
		throw new NodeOperationError(this.getNode(), `Batch IDs: ${read.problem}`, {
			description: read.hint,
		});
	}
	return read.batchIds.length > 0 ? new Set(read.batchIds) : undefined;
}
