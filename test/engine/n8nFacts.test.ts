/* eslint-disable
	@n8n/community-nodes/node-usable-as-tool
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * Facts about n8n's HTTP helper (httpRequestWithAuthentication) that the transport is built on:
 * which options keep a body byte for byte, how each failure arrives, and how often a request is
 * sent. They guard the transport's assumptions when n8n is upgraded.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
	INodeType,
} from 'n8n-workflow';

import { NodeConnectionTypes } from 'n8n-workflow';
import { MANUAL_TRIGGER, SET_ITEMS, outputOf, runWorkflow } from './harness';
import { startSandbox, type FaultKind, type Sandbox } from '../../sandbox/server';

// ---------------------------------------------------------------------------------------
// The peer: the sandbox (sandbox/README.md), with an account whose password holds a colon and
// 19-digit batch ids, which JSON.parse rounds.
// ---------------------------------------------------------------------------------------

const USERNAME = 'user';
const PASSWORD = 'pa:ss';
const BIG_ID = '1234567890123456789';
const SEND = '/api/sms/send';
/** A batch no one sent: 404 when nothing else (a fault, the credentials) answers first. */
const UNKNOWN_BATCH = '/api/sms/get_status?batch_id=1';
const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
/** Request options that make the probe send 'Hi' to one number. */
const SEND_HI: Partial<IHttpRequestOptions> = {
	method: 'POST',
	body: 'destination=447700900120&message=Hi',
	headers: FORM,
};
/** The sandbox's answer to the first SEND_HI, byte for byte. */
const SENT = `{"accepted":true,"batch_id":${BIG_ID},"batch_size":1,"receive_updates":false,"remaining_credits":99}`;
/** SENT as JSON.parse reads it: the batch id rounded. */
const SENT_PARSED = {
	accepted: true,
	batch_id: Number(BIG_ID),
	batch_size: 1,
	receive_updates: false,
	remaining_credits: 99,
};
const ERROR_500 = '{"error":"injected fault: internal server error"}';

let sandbox: Sandbox;

/** A base URL where nothing listens: a sandbox's, once stopped. */
async function stoppedBaseUrl(): Promise<string> {
	const stopped = await startSandbox();
	await stopped.stop();
	return stopped.baseUrl;
}

// ---------------------------------------------------------------------------------------
// Tiny node types defined here, not the package's.
// ---------------------------------------------------------------------------------------

/** Describes an error the way a transport would look at it. */
function errorShape(error: unknown): IDataObject {
	const e = error as IDataObject & { cause?: IDataObject & { response?: IDataObject } };
	return {
		name: e.constructor && (e.constructor as { name: string }).name,
		message: e.message as string,
		description: e.description as string,
		httpCode: e.httpCode as string,
		code: e.code as string,
		causeName: e.cause?.constructor && (e.cause.constructor as { name: string }).name,
		causeCode: e.cause?.code as string,
		causeStatus: (e.cause?.response as IDataObject | undefined)?.status as number,
		causeResponseData: (e.cause?.response as IDataObject | undefined)?.data as string,
		causeRetryAfter: (
			(e.cause?.response as IDataObject | undefined)?.headers as IDataObject | undefined
		)?.['retry-after'] as string,
	};
}

const PROBE = 'harness.httpProbe';

/** One request per item with the credential; outputs the answer or the error's shape. */
class HttpProbe implements INodeType {
	description: INodeType['description'] = {
		displayName: 'HTTP Probe',
		name: 'httpProbe',
		group: ['transform'],
		version: 1,
		description: 'Sends a request per item',
		defaults: { name: 'HTTP Probe' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'bulkSmsApi', required: true }],
		properties: [
			{ displayName: 'Path', name: 'path', type: 'string', default: '/' },
			{ displayName: 'Options', name: 'requestOptions', type: 'string', default: '{}' },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const out: INodeExecutionData[] = [];
		const { baseUrl } = await this.getCredentials<{ baseUrl: string }>('bulkSmsApi');
		for (let i = 0; i < this.getInputData().length; i++) {
			const path = this.getNodeParameter('path', i) as string;
			const options = JSON.parse(
				this.getNodeParameter('requestOptions', i) as string,
			) as Partial<IHttpRequestOptions>;
			try {
				const response: unknown = await this.helpers.httpRequestWithAuthentication.call(
					this,
					'bulkSmsApi',
					{
						method: 'GET',
						url: `${baseUrl}${path}`,
						...options,
					},
				);
				out.push({ json: { response: response as IDataObject }, pairedItem: { item: i } });
			} catch (error) {
				out.push({ json: { error: errorShape(error) }, pairedItem: { item: i } });
			}
		}
		return [out];
	}
}

function workflowNodes(parameters: INode['parameters']): INode[] {
	return [
		{
			id: '1',
			name: 'Start',
			type: MANUAL_TRIGGER,
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
		{
			id: '2',
			name: 'Items',
			type: SET_ITEMS,
			typeVersion: 1,
			position: [200, 0],
			parameters: { items: '[{}]' },
		},
		{ id: '3', name: 'Probe', type: PROBE, typeVersion: 1, position: [400, 0], parameters },
	];
}

const connections = {
	Start: { main: [[{ node: 'Items', type: 'main' as const, index: 0 }]] },
	Items: { main: [[{ node: 'Probe', type: 'main' as const, index: 0 }]] },
};

beforeEach(async () => {
	sandbox = await startSandbox({
		accounts: [{ username: USERNAME, password: PASSWORD, credits: 100 }],
		firstBatchId: BIG_ID,
		timeScale: 0,
	});
});

afterEach(async () => {
	await sandbox.stop();
});

function run(parameters: INode['parameters'], base = sandbox.baseUrl) {
	return runWorkflow({
		nodes: workflowNodes(parameters),
		connections,
		nodeTypes: { [PROBE]: new HttpProbe() },
		credentials: { bulkSmsApi: { baseUrl: base, username: USERNAME, password: PASSWORD } },
	});
}

describe('HTTP behaviour of httpRequestWithAuthentication (facts the transport relies on)', () => {
	const probe = async (path: string, options: Partial<IHttpRequestOptions>, base?: string) => {
		const result = await run({ path, requestOptions: JSON.stringify(options) }, base);
		return outputOf(result, 'Probe')[0].json;
	};

	type Setup = (peer: Sandbox) => unknown;
	const queue =
		(kind: FaultKind, retryAfterSeconds = 1): Setup =>
		(peer) => {
			peer.setFaults({ retryAfterSeconds });
			peer.queueFaults(kind);
		};
	const wrongPassword: Setup = (peer) =>
		peer.upsertAccount({ username: USERNAME, password: 'not-pa:ss' });

	it('uses a batch id that JSON.parse rounds', () => {
		expect(String(Number(BIG_ID))).not.toBe(BIG_ID);
	});

	it.each<[string, Setup, Partial<IHttpRequestOptions>, unknown]>([
		// axios' forcedJSONParsing parses any JSON-looking body unless responseType is text,
		// whatever `json` says: ids beyond 2^53 are corrupted.
		['default', () => {}, {}, SENT_PARSED],
		['json: false', () => {}, { json: false }, SENT_PARSED],
		['encoding: text', () => {}, { encoding: 'text' }, SENT],
		[
			'text, full response',
			() => {},
			{ json: false, encoding: 'text', returnFullResponse: true },
			expect.objectContaining({ body: SENT, statusCode: 200, statusMessage: 'OK' }),
		],
		[
			'text, full response, 500 ignored',
			queue('error500'),
			{ encoding: 'text', returnFullResponse: true, ignoreHttpStatusErrors: true },
			expect.objectContaining({ body: ERROR_500, statusCode: 500 }),
		],
	])('returns the body (%s)', async (_label, setup, options, expected) => {
		await setup(sandbox);
		expect((await probe(SEND, { ...SEND_HI, ...options })).response).toEqual(expected);
	});

	it.each<[string, Setup, Partial<IHttpRequestOptions>, IDataObject, number]>([
		// A 401 is sent twice: httpRequestWithAuthentication retries once after preAuthentication.
		[
			'a 401',
			wrongPassword,
			{ encoding: 'text' },
			{
				httpCode: '401',
				message: 'Authorization failed - please check your credentials',
				causeStatus: 401,
				causeCode: 'ERR_BAD_REQUEST',
				causeResponseData: '{"error":"wrong username or password"}',
			},
			2,
		],
		[
			'a 404',
			() => {},
			{ encoding: 'text' },
			{
				httpCode: '404',
				message: 'The resource you are requesting could not be found',
				causeStatus: 404,
				causeResponseData: '{"error":"no batch 1 for this account"}',
			},
			1,
		],
		[
			'a 429',
			queue('error429', 7),
			{ encoding: 'text' },
			{
				httpCode: '429',
				message: 'The service is receiving too many requests from you',
				causeStatus: 429,
				causeRetryAfter: '7',
			},
			1,
		],
		[
			'a 500',
			queue('error500'),
			{ encoding: 'text' },
			{
				httpCode: '500',
				message: 'The service was not able to process your request',
				description: 'Request failed with status code 500',
				causeStatus: 500,
				causeCode: 'ERR_BAD_RESPONSE',
				causeResponseData: ERROR_500,
			},
			1,
		],
		[
			'a 503',
			queue('error503', 7),
			{ encoding: 'text' },
			{ httpCode: '503', causeStatus: 503, causeRetryAfter: '7' },
			1,
		],
		[
			'an answer slower than the timeout',
			(peer) => peer.setFaults({ latencyMs: 60_000 }),
			{ encoding: 'text', timeout: 300 },
			{
				httpCode: 'ECONNABORTED',
				causeCode: 'ECONNABORTED',
				message: 'The connection was aborted, perhaps the server is offline',
			},
			1,
		],
		[
			'a connection dropped after the request was sent',
			queue('dropBefore'),
			{ encoding: 'text' },
			{ httpCode: 'ECONNRESET', causeCode: 'ECONNRESET' },
			1,
		],
	])('throws a NodeApiError for %s', async (_label, setup, options, expected, requests) => {
		await setup(sandbox);
		const out = await probe(UNKNOWN_BATCH, options);
		expect(out.error).toMatchObject({ name: 'NodeApiError', causeName: 'AxiosError', ...expected });
		expect(sandbox.requests()).toHaveLength(requests);
	});

	it('sends a 401 once when status errors are ignored', async () => {
		await wrongPassword(sandbox);
		const out = await probe(UNKNOWN_BATCH, {
			encoding: 'text',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
		});
		expect(out.response).toMatchObject({
			statusCode: 401,
			body: '{"error":"wrong username or password"}',
		});
		expect(sandbox.requests()).toHaveLength(1);
	});

	it('throws a NodeApiError for a refused connection', async () => {
		const out = await probe('/x', { encoding: 'text' }, await stoppedBaseUrl());
		expect(out.error).toMatchObject({
			name: 'NodeApiError',
			httpCode: 'ECONNREFUSED',
			causeCode: 'ECONNREFUSED',
			message: 'The service refused the connection - perhaps it is offline',
		});
	});
});
