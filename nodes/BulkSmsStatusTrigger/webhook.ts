import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { readBatchIdList } from '../shared/domain/campaign';
import type { RawReport } from '../shared/domain/responses';
import { passes, triggerFilter } from '../shared/domain/reportFilter';
import { callerProblem } from './authentication';
import { handoverItems } from './handover';
import type { KnownReports } from './knownReports';
import { DEFAULT_MEMORY, sift } from './memory';
import { memoryLimit, MEMORY_KEY, triggerOf } from './parameters';
import { DEFAULT_MAX_REPORTS, MAX_MAX_REPORTS, readCallback } from './read';
import type { RecentCredentials } from './recentCredentials';
import { readStored, storedLookup, storeMemory } from './storedMemory';

const REALM = 'Basic realm="Bulk SMS callbacks"';

/**
 * The one answer to every caller that did not prove itself, whatever the method or the reason:
 * it tells nobody which method is set, or whether a secret is. n8n's log has the reason.
 */
const UNAUTHENTICATED = {
	error: 'Not authenticated: this callback URL takes only callbacks that carry its secret',
};

/**
 * One callback: check the caller, read the reports, tell the news from repeats, filter, emit.
 * Answers 200 at once (onReceived) with what became of the reports; 401, 400 and 413 start
 * nothing.
 */
export async function receiveCallback(
	this: IWebhookFunctions,
	known: KnownReports,
	credentials: RecentCredentials,
): Promise<IWebhookResponseData> {
	const refusal = await callerProblem.call(this, credentials);
	if (refusal) {
		this.logger.warn(`Bulk SMS Status Trigger refused a callback: ${refusal}`);
		return answer.call(this, 401, UNAUTHENTICATED, { 'WWW-Authenticate': REALM });
	}
	const reading = readCallback(
		{ body: await rawBody.call(this), query: queryOf.call(this) },
		maxReports(this.getNodeParameter('options.maxReports', DEFAULT_MAX_REPORTS)),
	);
	if ('tooMany' in reading) {
		this.logger.warn(`Bulk SMS Status Trigger refused a callback: ${reading.tooMany}`);
		return answer.call(this, 413, { error: `Too many reports: ${reading.tooMany}` });
	}
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
			storeMemory(staticData, MEMORY_KEY, stored, memory, limit);
		}
		return answer.call(this, 200, { ...counts, emitted: 0 });
	}
	memory.hold(sifted.keys);
	const items = handoverItems(wanted, sifted.keys, known.process);
	const turn = await memory.gathering.join({ items });
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
	// n8n answers webhookResponse once the execution has started (the description's
	// responseData is '' for that: see BulkSmsStatusTrigger.node.ts).
	return {
		workflowData: [turn.carries.flatMap((parcel) => parcel.items)],
		webhookResponse: { ...counts, emitted: wanted.length },
	};
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

/** The Max Reports per Callback option, bounded as the option is. */
function maxReports(limit: unknown): number {
	return Math.min(MAX_MAX_REPORTS, Math.max(1, Math.floor(limit as number) || DEFAULT_MAX_REPORTS));
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

/** Which reports are emitted: those of Batch IDs that pass the report filter of every node. */
function reportFilter(this: IWebhookFunctions): (report: RawReport) => boolean {
	const batches = batchFilter.call(this);
	// report.batch_id is already in the service's form (read by readDeliveryReport).
	const ofBatches = (report: RawReport) => !batches || batches.has(report.batch_id);
	const on = this.getNodeParameter('emit', 'final') as string;
	if (on === 'statuses') {
		// Version 1's Chosen Statuses, with its Statuses list: Every Status Change with Only
		// Statuses, except that none chosen emitted nothing, as it still does.
		const chosen = this.getNodeParameter('statuses', []) as string[];
		const filter = { finalOnly: false, statuses: chosen };
		return (report) => chosen.length > 0 && ofBatches(report) && passes(filter, report.status);
	}
	// Version 1 saved Every Status Change as 'all'.
	const statuses = this.getNodeParameter('options.statuses', []) as string[];
	const filter = triggerFilter(on === 'final' ? 'final' : 'changes', statuses);
	return (report) => ofBatches(report) && passes(filter, report.status);
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
