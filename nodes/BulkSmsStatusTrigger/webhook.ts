import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { readBatchIdList } from '../shared/domain/campaign';
import { shapeReport } from '../shared/domain/reports';
import type { RawReport } from '../shared/domain/responses';
import { passes, triggerFilter } from '../shared/domain/reportFilter';
import { serviceSettings } from '../shared/transport';
import { callerProblem } from './authentication';
import { DEFAULT_MEMORY, MAX_MEMORY, remember, sift, type ReportKey } from './memory';
import { DEFAULT_MAX_REPORTS, MAX_MAX_REPORTS, readCallback } from './read';

/** Key of the trigger's memory in the node's static data. */
const MEMORY_KEY = 'seen';
const REALM = 'Basic realm="Bulk SMS callbacks"';

/**
 * The one answer to every caller that did not prove itself, whatever the method or the reason:
 * it tells nobody which method is set, or whether a secret is. n8n's log has the reason.
 */
const UNAUTHENTICATED = {
	error: 'Not authenticated: this callback URL takes only callbacks that carry its secret',
};

/**
 * One callback: check the caller, read the reports, forget the repeats, filter, emit. Answers
 * 200 at once (onReceived) with what became of the reports; 401, 400 and 413 start nothing.
 */
export async function receiveCallback(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const refusal = await callerProblem.call(this);
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
	const staticData = this.getWorkflowStaticData('node');
	const limit = memoryLimit(this.getNodeParameter('options.memory', DEFAULT_MEMORY));
	const sifted = sift(staticData[MEMORY_KEY], reading.reports, limit);
	const wanted = sifted.fresh.filter(reportFilter.call(this));
	const received = {
		received: reading.reports.length,
		repeated: sifted.repeated,
		late: sifted.late,
	};
	if (wanted.length === 0) {
		// No execution starts, so n8n saves this call's static data: keep what was new (only then,
		// so that a mere repeat never writes over what a running execution is about to store).
		if (sifted.added > 0) staticData[MEMORY_KEY] = sifted.memory;
		return answer.call(this, 200, { ...received, emitted: 0 });
	}
	const timeZone = await callbackTimeZone.call(this);
	const items: INodeExecutionData[] = wanted.map((raw) => ({
		json: shapeReport(raw, timeZone) as unknown as IDataObject,
	}));
	// The emitted reports are remembered by the execution they start (execute() below): n8n
	// drops static data that webhook() writes when the call starts an execution.
	// n8n answers webhookResponse once the execution has started (the description's
	// responseData is '' for that: see BulkSmsStatusTrigger.node.ts).
	return { workflowData: [items], webhookResponse: { ...received, emitted: items.length } };
}

/**
 * The trigger's step in the execution its callback started: remember the reports it emitted,
 * in the static data that n8n saves when the execution ends, and pass them on.
 */
export async function rememberEmitted(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const reports = items.map((item) => item.json).filter(isReportKey);
	const staticData = this.getWorkflowStaticData('node');
	const limit = memoryLimit(this.getNodeParameter('options.memory', 0, DEFAULT_MEMORY));
	staticData[MEMORY_KEY] = remember(staticData[MEMORY_KEY], reports, limit);
	return [items.map((item, index) => ({ json: item.json, pairedItem: { item: index } }))];
}

/** The Max Reports per Callback option, bounded as the option is. */
function maxReports(limit: unknown): number {
	return Math.min(MAX_MAX_REPORTS, Math.max(1, Math.floor(limit as number) || DEFAULT_MAX_REPORTS));
}

function isReportKey(json: IDataObject): json is IDataObject & ReportKey {
	return ['batch_id', 'gateway_session_id', 'msisdn', 'status'].every(
		(field) => typeof json[field] === 'string',
	);
}

/**
 * The Remember option, bounded. Read by each context in its own way: a webhook's
 * getNodeParameter takes no item index (given one, it took the 0 as the fallback).
 */
function memoryLimit(limit: unknown): number {
	return Math.min(MAX_MEMORY, Math.max(1, Math.floor(limit as number) || DEFAULT_MEMORY));
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

/** The credential is optional here: it only gives the zone of delivery dates (UTC without it). */
async function callbackTimeZone(this: IWebhookFunctions): Promise<string> {
	if (!this.getNode().credentials?.bulkSmsApi) return 'UTC';
	const { timeZone } = await serviceSettings.call(this);
	return timeZone;
}
