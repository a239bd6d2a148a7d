/**
 * One callback, from the body to what n8n starts: check the caller and the setup (setup.ts), read
 * the reports (read.ts), sort them against the memory (memory.ts), and hand the news to an
 * execution (gathering.ts), whose first step, the trigger's own (execute.ts), remembers them and
 * emits those the filters want. Every answer is JSON that says what became of the reports; 401,
 * 400 and 413 start nothing, and neither does a callback the trigger cannot keep (503, so that the
 * service sends it again).
 */
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { shapeReport } from '../shared/domain/reports';
import type { RawReport } from '../shared/domain/responses';
import type { Gathering } from './gathering';
import type { TriggerMemory } from './memory';
import { memorySize, reportFilter } from './parameters';
import { DEFAULT_MAX_REPORTS, MAX_MAX_REPORTS, readCallback } from './read';
import { callbackSetup, type RecentCredentials } from './setup';

/** What a callback uses of what this process keeps of the trigger (BulkSmsStatusTrigger.node.ts). */
export interface CallbackSide {
	memory: TriggerMemory;
	gathering: Gathering;
	credentials: RecentCredentials;
}

const REALM = 'Basic realm="Bulk SMS callbacks"';

/**
 * The one answer to every caller that did not prove itself, whatever the method or the reason:
 * it tells nobody which method is set, or whether a secret is. n8n's log has the reason.
 */
const UNAUTHENTICATED = {
	error: 'Not authenticated: this callback URL takes only callbacks that carry its secret',
};

export async function receiveCallback(
	this: IWebhookFunctions,
	trigger: CallbackSide,
): Promise<IWebhookResponseData> {
	const setup = await callbackSetup.call(this, trigger.credentials);
	if ('refused' in setup) {
		this.logger.warn(`Bulk SMS Status Trigger refused a callback: ${setup.refused}`);
		return answer.call(this, 401, UNAUTHENTICATED, { 'WWW-Authenticate': REALM });
	}
	if ('broken' in setup) {
		// Nothing is kept: the service's next try is news once the setup is put right.
		this.logger.warn(`Bulk SMS Status Trigger could not take a callback: ${setup.broken}`);
		const error = `The trigger cannot take callbacks now: ${setup.broken}. Nothing was kept: send it again.`;
		return answer.call(this, 503, { error });
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
	return await handOver.call(this, trigger, reading.reports, setup.timeZone);
}

/**
 * The reports' fate. A callback with no news the filters want is answered here, its news
 * remembered in the static data n8n saves after the answer; one with news goes in an execution
 * (all its news, wanted or not, for the trigger's step to remember): its own, or one another
 * callback starts (gathering.ts).
 */
async function handOver(
	this: IWebhookFunctions,
	trigger: CallbackSide,
	reports: RawReport[],
	timeZone: string,
): Promise<IWebhookResponseData> {
	const received = trigger.memory.receive(reports, this.getWorkflowStaticData('node'), {
		wanted: reportFilter(this),
		size: memorySize(this),
		clock: Date.now,
	});
	const counts = { received: reports.length, repeated: received.repeated, late: received.late };
	const { settle } = received;
	if (!settle) return answer.call(this, 200, { ...counts, emitted: 0 });
	const emitted = received.news.filter((one) => one.wanted).length;
	const handed = await trigger.gathering.join({
		items: received.news.map(({ report }) => ({
			json: shapeReport(report, timeZone) as unknown as IDataObject,
		})),
		wanted: received.news.map((one) => one.wanted),
	});
	if ('startedWith' in handed) {
		const { started } = handed.startedWith;
		settle(started);
		if (started) return answer.call(this, 200, { ...counts, emitted });
		return answer.call(this, 503, { error: 'The workflow could not be started: send it again' });
	}
	whenAnswered(this.getResponseObject(), (started) => {
		settle(started);
		handed.answered(started);
	});
	// n8n answers webhookResponse once the execution has started (the description's
	// responseData is '' for that: see BulkSmsStatusTrigger.node.ts).
	return {
		workflowData: [handed.starts.flatMap((callback) => callback.items)],
		webhookResponse: { ...counts, emitted },
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

/** Written directly, so that nothing starts; n8n then sends nothing more. */
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
