/**
 * The one place that talks HTTP to the service: used by BulkSms and Bulk SMS Trigger (the
 * Status Trigger only reads the credential's time zone, through timeZoneOf).
 * request.ts makes one bounded attempt, retry.ts decides what is tried again, errors.ts words
 * every failure, secrets.ts blanks the account's secrets out of whatever leaves.
 */
import type {
	ICredentialDataDecryptedObject,
	IHttpRequestOptions,
	IWebhookFunctions,
	NodeApiError,
	NodeOperationError,
} from 'n8n-workflow';

import type { WireFormat } from '../domain/body';
import {
	readSendAnswer,
	readStatusAnswer,
	type RawReport,
	type ResponseShapeError,
	type SendResponse,
} from '../domain/responses';
import { asNodeError } from '../items';
import {
	networkFailure,
	statusFailure,
	tooLarge,
	tooSlow,
	unreadableAnswer,
	type Reporter,
} from './errors';
import { blankedReason } from './excerpts';
import { concernsAccount } from './failureKinds';
import { limitsFor, type TransportLimits } from './limits';
import { RequestPace } from './pace';
import { forEachConcurrently } from './pool';
import {
	finishingOnStop,
	requestOnce,
	type AttemptFailure,
	type BulkSmsFunctions,
	type RawAnswer,
} from './request';
import { withRetries } from './retry';
import { secretsOf, withoutUserinfo } from './secrets';
import { CREDENTIAL, settingsOf, type ServiceSettings } from './settings';

export { restated, SendOutcomeUnknownError, UNREADABLE } from './errors';
export { concernsAccount, failureKind } from './failureKinds';
export { overrideTransportLimits } from './limits';
export { CREDENTIAL, timeZoneOf } from './settings';
export { RequestPace } from './pace';
export { forEachConcurrently } from './pool';

export type NodeError = NodeApiError | NodeOperationError;

export interface CallOptions {
	format: WireFormat;
	itemIndex?: number;
	/** Shared by the requests of one execution that go out together (see RequestPace). */
	pace?: RequestPace;
	/** Shorter limits than the defaults (60 s per request, 256 MB per answer), e.g. in tests. */
	limits?: Partial<TransportLimits>;
	/** The credential as already read for this group of calls (see readAccount). */
	account?: Account;
}

/**
 * The credential, read once for calls that share it (one poll's batches): n8n reads and
 * decrypts it from its database on every read, which a poll of 10,000 batches would do 10,000
 * times. Read it again for each poll or item, so that a changed credential is seen.
 */
export type Account = ICredentialDataDecryptedObject;

export async function readAccount(
	this: BulkSmsFunctions | IWebhookFunctions,
	itemIndex = 0,
): Promise<Account> {
	return await this.getCredentials(CREDENTIAL, itemIndex);
}

/** An item's credential, read on its first use in a run (see accountsOfRun). */
export type AccountOf = (itemIndex: number) => Promise<Account>;

/**
 * The credential of each item, read once for all the calls of one run (the settings, an item's
 * long send or its list of batches): per item, since a credential may hold expressions that
 * differ per item.
 */
export function accountsOfRun(this: BulkSmsFunctions): AccountOf {
	const accounts = new Map<number, Promise<Account>>();
	return async (itemIndex) => {
		let account = accounts.get(itemIndex);
		if (!account) {
			account = readAccount.call(this, itemIndex);
			accounts.set(itemIndex, account);
		}
		return await account;
	};
}

export interface SendRequest {
	destinations: readonly string[];
	message: string;
	validity_period?: string;
}

const ACCEPT: Record<WireFormat, string> = { json: 'application/json', xml: 'application/xml' };

/** Reads the credential's settings that node code needs (never the secrets). */
export async function serviceSettings(
	this: BulkSmsFunctions | IWebhookFunctions,
	itemIndex = 0,
	account?: Account,
): Promise<ServiceSettings> {
	return settingsOf(
		this.getNode(),
		account ?? (await readAccount.call(this, itemIndex)),
		itemIndex,
	);
}

/**
 * Submits one batch. A send is not idempotent, so it is repeated only when the service
 * certainly did not take it; any other failure is reported, never retried.
 */
export async function sendBatch(
	this: BulkSmsFunctions,
	request: SendRequest,
	options: CallOptions,
): Promise<SendResponse> {
	const form = new URLSearchParams({
		destination: request.destinations.join(','),
		message: request.message,
	});
	if (request.validity_period) form.set('validity_period', request.validity_period);
	const http = {
		method: 'POST' as const,
		url: '/api/sms/send',
		body: form.toString(),
		headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
	};
	const { answer, reporter } = await call.call(this, http, options, { kind: 'send' });
	const response = read(reporter, answer, readSendAnswer);
	// The service's own reason goes into `service_error` and error messages: a gateway may
	// have echoed the password into it.
	if (response.error !== undefined)
		response.error = blankedReason(response.error, reporter.secrets);
	return response;
}

/** Fetches the delivery reports of one batch; a read, so transient failures are retried. */
export async function fetchReports(
	this: BulkSmsFunctions,
	batchId: string,
	options: CallOptions,
): Promise<RawReport[]> {
	const http = { method: 'GET' as const, url: '/api/sms/get_status', qs: { batch_id: batchId } };
	const { answer, reporter } = await call.call(this, http, options, { kind: 'status', batchId });
	return read(reporter, answer, readStatusAnswer);
}

/** Reads in flight at once: thousands of batches are read in minutes, gently on the service. */
export const READS_IN_FLIGHT = 8;

export interface BatchRead {
	batchId: string;
	format: WireFormat;
	/** The item the read is for: its credential is used, and its index is on any error. */
	itemIndex?: number;
}

/** How the reads of a run are going, for the caller's decision to start no more of them. */
export interface ReadProgress {
	/** Reads started so far; the next one to start is the one at this index. */
	started: number;
	read: number;
	/** Reports the reads so far brought. */
	reports: number;
	failed: number;
	/** Whether a failure concerned the account or its address rather than one batch. */
	accountFailed: boolean;
}

/**
 * Reads the reports of many batches (Get Status over a campaign, a poll of the Bulk SMS
 * Trigger), each under its own key: READS_IN_FLIGHT at a time, sharing one pace so that a 429 holds them all. A read
 * that fails holds its error in place of the reports. Once `stop` says so, no new read starts
 * (those in flight finish) and the rest are left out of the result.
 */
export async function fetchMany(
	this: BulkSmsFunctions,
	reads: ReadonlyMap<string, BatchRead>,
	accountOf: AccountOf,
	stop: (progress: ReadProgress) => boolean,
): Promise<Map<string, RawReport[] | NodeError>> {
	const results = new Map<string, RawReport[] | NodeError>();
	const progress: ReadProgress = {
		started: 0,
		read: 0,
		reports: 0,
		failed: 0,
		accountFailed: false,
	};
	const pace = new RequestPace();
	const readOne = async ([key, { batchId, format, itemIndex }]: [string, BatchRead]) => {
		progress.started++;
		try {
			const account = await accountOf(itemIndex ?? 0);
			const options = { format, itemIndex, pace, account };
			const reports = await fetchReports.call(this, batchId, options);
			results.set(key, reports);
			progress.read++;
			progress.reports += reports.length;
		} catch (error) {
			const failure = asNodeError(this, error, itemIndex);
			results.set(key, failure);
			progress.failed++;
			progress.accountFailed ||= concernsAccount(failure);
		}
	};
	await forEachConcurrently([...reads], READS_IN_FLIGHT, readOne, () => stop(progress));
	return results;
}

type HttpCall = Pick<IHttpRequestOptions, 'method' | 'qs' | 'body' | 'headers'> & { url: string };

/** One call with its retries; the credential is read once, and every failure is worded. */
async function call(
	this: BulkSmsFunctions,
	http: HttpCall,
	options: CallOptions,
	kind: Reporter['call'],
): Promise<{ answer: RawAnswer; reporter: Reporter }> {
	const credentials = options.account ?? (await readAccount.call(this, options.itemIndex));
	const { baseUrl } = settingsOf(this.getNode(), credentials, options.itemIndex ?? 0);
	const reporter: Reporter = {
		node: this.getNode(),
		itemIndex: options.itemIndex,
		call: kind,
		shownBaseUrl: withoutUserinfo(baseUrl),
		path: http.url,
		secrets: secretsOf(credentials),
	};
	const limits = limitsFor(options.limits);
	const request = requestFor(http, baseUrl, options.format, limits);
	const policy = {
		idempotent: kind.kind === 'status',
		pace: options.pace ?? new RequestPace(),
		limits,
	};
	const caller = kind.kind === 'send' ? finishingOnStop(this) : this;
	const attempt = async () => await requestOnce.call(caller, request, credentials, limits);
	const outcome = await withRetries(attempt, policy);
	if ('failure' in outcome) throw failureError(reporter, outcome.failure, limits);
	const answer = outcome.answer;
	if (answer.statusCode < 200 || answer.statusCode >= 300) throw statusFailure(reporter, answer);
	return { answer, reporter };
}

/**
 * Every status is read here (not thrown by n8n), as text in the format asked for. No redirect
 * is followed: the interface never redirects, and n8n would follow one with the account's
 * credentials to any origin it names (it sends them across origins by default), re-post a send
 * there, or turn it into a GET whose answer would pass for the send's.
 */
function requestFor(
	http: HttpCall,
	baseUrl: string,
	format: WireFormat,
	limits: TransportLimits,
): IHttpRequestOptions {
	return {
		...http,
		baseURL: baseUrl,
		headers: { ...http.headers, Accept: ACCEPT[format] },
		json: false,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		disableFollowRedirect: true,
		// n8n's idle timeout; the total time is bounded in requestOnce.
		timeout: limits.totalMs,
	};
}

function failureError(reporter: Reporter, failure: AttemptFailure, limits: TransportLimits) {
	if (failure.kind === 'tooSlow') return tooSlow(reporter, limits.totalMs);
	if (failure.kind === 'tooLarge')
		return tooLarge(reporter, failure.statusCode, limits.maxBodyBytes);
	return networkFailure(reporter, failure.code);
}

function read<T>(reporter: Reporter, answer: RawAnswer, reader: (body: string) => T): T {
	try {
		return reader(answer.body);
	} catch (error) {
		// The readers throw only ResponseShapeError, whose message says what is wrong.
		throw unreadableAnswer(reporter, answer, (error as ResponseShapeError).message);
	}
}
