import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type {
	ICredentialType,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
	INodeType,
	IPollFunctions,
} from 'n8n-workflow';

import {
	MANUAL_TRIGGER,
	SET_ITEMS,
	errorOf,
	loadPackageCredentialType,
	outputOf,
	pollOnce,
	runWorkflow,
	testCredential,
} from './harness';
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
const statusOf = (batchId: string) => `/api/sms/get_status?batch_id=${batchId}`;
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

/** Sends 'Hi' to each number straight to the sandbox, a batch each; returns the batch ids. */
async function sendBatches(...msisdns: string[]): Promise<string[]> {
	const authorization = `Basic ${Buffer.from(`${USERNAME}:${PASSWORD}`).toString('base64')}`;
	for (const destination of msisdns) {
		const response = await fetch(`${sandbox.baseUrl}${SEND}`, {
			method: 'POST',
			headers: { Authorization: authorization, ...FORM },
			body: new URLSearchParams({ destination, message: 'Hi' }).toString(),
		});
		expect(response.status).toBe(200);
	}
	return sandbox.received().batches.map((batch) => batch.batch_id);
}

// ---------------------------------------------------------------------------------------
// Tiny node types defined here, not the package's.
// ---------------------------------------------------------------------------------------

/** The same generic shape our credential uses, for when the real one is not there yet. */
const standInCredential: ICredentialType = {
	name: 'bulkSmsApi',
	displayName: 'Stand-in Basic API',
	properties: [
		{ displayName: 'Base URL', name: 'baseUrl', type: 'string', default: '' },
		{ displayName: 'Username', name: 'username', type: 'string', default: '' },
		{
			displayName: 'Password',
			name: 'password',
			type: 'string',
			default: '',
			typeOptions: { password: true },
		},
	],
	authenticate: {
		type: 'generic',
		properties: {
			auth: { username: '={{$credentials.username}}', password: '={{$credentials.password}}' },
		},
	},
};

const credentialTypes = loadPackageCredentialType('bulkSmsApi') ? [] : [standInCredential];

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

/** Sends one request per item with the credential; `path` and `options` are per item. */
class HttpProbe implements INodeType {
	description: INodeType['description'] = {
		displayName: 'HTTP Probe',
		name: 'httpProbe',
		group: ['transform'],
		version: 1,
		description: 'Sends a request per item',
		defaults: { name: 'HTTP Probe' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: 'bulkSmsApi', required: true }],
		properties: [
			{ displayName: 'Path', name: 'path', type: 'string', default: '/' },
			{ displayName: 'Options', name: 'requestOptions', type: 'string', default: '{}' },
			{ displayName: 'Capture Errors', name: 'capture', type: 'boolean', default: false },
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
				if (this.getNodeParameter('capture', i) as boolean) {
					out.push({ json: { error: errorShape(error) }, pairedItem: { item: i } });
				} else if (this.continueOnFail()) {
					out.push({ json: { error: (error as Error).message }, pairedItem: { item: i } });
				} else {
					throw error;
				}
			}
		}
		return [out];
	}
}

function workflowNodes(
	probe: Partial<INode> & { parameters: INode['parameters'] },
	items: IDataObject[] = [{}],
): INode[] {
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
			parameters: { items: JSON.stringify(items) },
		},
		{ id: '3', name: 'Probe', type: PROBE, typeVersion: 1, position: [400, 0], ...probe },
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

function run(
	probe: Partial<INode> & { parameters: INode['parameters'] },
	items?: IDataObject[],
	base = sandbox.baseUrl,
) {
	return runWorkflow({
		nodes: workflowNodes(probe, items),
		connections,
		nodeTypes: { [PROBE]: new HttpProbe() },
		credentialTypes,
		credentials: { bulkSmsApi: { baseUrl: base, username: USERNAME, password: PASSWORD } },
	});
}

describe('runWorkflow', () => {
	it('applies the generic auth of the credential type as HTTP Basic', async () => {
		const result = await run({
			parameters: { path: SEND, requestOptions: JSON.stringify(SEND_HI) },
		});
		expect(errorOf(result, 'Probe')).toBeUndefined();
		// The sandbox takes the send only with HTTP Basic for user and pa:ss, colon included.
		expect(sandbox.requests()).toEqual([
			expect.objectContaining({ account: USERNAME, outcome: 200 }),
		]);
		expect(sandbox.received().batches).toHaveLength(1);
	});

	it('resolves expressions from the previous node per item and keeps pairedItem', async () => {
		const msisdns = ['447700900120', '447700900121', '447700900122'];
		const ids = await sendBatches(...msisdns);
		const result = await run(
			{ parameters: { path: '=/api/sms/get_status?batch_id={{ $json.id }}' } },
			ids.map((id) => ({ id })),
		);
		const asked = sandbox.requests().filter((request) => request.method === 'GET');
		expect(asked.map((request) => request.query)).toEqual(ids.map((id) => `?batch_id=${id}`));
		const output = outputOf(result, 'Probe');
		expect(
			output.map((o) => (o.json.response as { reports: IDataObject[] }).reports[0].msisdn),
		).toEqual(msisdns);
		expect(output.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	});

	it('stops the run at the failing node, with the error, without continueOnFail', async () => {
		const [id] = await sendBatches('447700900120');
		const result = await run({ parameters: { path: '={{ $json.p }}' } }, [
			{ p: statusOf(id) },
			{ p: UNKNOWN_BATCH },
		]);
		const error = errorOf(result, 'Probe');
		expect(error).toMatchObject({ name: 'NodeApiError', httpCode: '404' });
		expect(result.status).toBe('error');
		expect(sandbox.requests().map((request) => request.outcome)).toEqual([200, 200, 404]);
	});

	it('turns failures into error items with continueOnFail', async () => {
		const [id] = await sendBatches('447700900120');
		const result = await run(
			{ parameters: { path: '={{ $json.p }}' }, onError: 'continueRegularOutput' },
			[{ p: statusOf(id) }, { p: UNKNOWN_BATCH }],
		);
		expect(errorOf(result, 'Probe')).toBeUndefined();
		const output = outputOf(result, 'Probe');
		expect(output[0].json.response).toMatchObject({ reports: [{ msisdn: '447700900120' }] });
		expect(output[1].json.error).toEqual(expect.any(String));
		expect(output[1].pairedItem).toEqual({ item: 1 });
	});
});

describe('HTTP behaviour of httpRequestWithAuthentication (facts the transport relies on)', () => {
	const probe = async (path: string, options: Partial<IHttpRequestOptions>, base?: string) => {
		const result = await run(
			{ parameters: { path, requestOptions: JSON.stringify(options), capture: true } },
			[{}],
			base,
		);
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

describe('pollOnce', () => {
	const POLLER = 'harness.poller';

	/** Counts polls in node static data; emits on odd counts; throws when told to. */
	class Poller implements INodeType {
		description: INodeType['description'] = {
			displayName: 'Poller Trigger',
			name: 'poller',
			group: ['trigger'],
			version: 1,
			description: 'Counts polls',
			defaults: { name: 'Poller' },
			polling: true,
			inputs: [],
			outputs: ['main'],
			properties: [{ displayName: 'Fail', name: 'fail', type: 'boolean', default: false }],
		};

		async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
			const data = this.getWorkflowStaticData('node');
			data.count = ((data.count as number | undefined) ?? 0) + 1;
			if (this.getNodeParameter('fail') as boolean) throw new Error('poll failed');
			return (data.count as number) % 2 === 1 ? [[{ json: { count: data.count } }]] : null;
		}
	}

	const node = (fail = false): INode => ({
		id: 'p',
		name: 'Poller',
		type: POLLER,
		typeVersion: 1,
		position: [0, 0],
		parameters: { fail },
	});

	it('keeps node static data across polls through PollContext', async () => {
		const staticData: IDataObject = {};
		const persisted: IDataObject = {};
		const common = { nodeTypes: { [POLLER]: new Poller() }, staticData, persisted };
		const first = await pollOnce({ ...common, node: node() });
		expect(first.result).toEqual([[{ json: { count: 1 } }]]);
		expect(staticData).toEqual({ 'node:Poller': { count: 1 } });
		expect(persisted).toEqual({ 'node:Poller': { count: 1 } });

		const second = await pollOnce({ ...common, node: node() });
		expect(second.result).toBeNull();
		expect(staticData).toEqual({ 'node:Poller': { count: 2 } });
		// Nothing emitted, so nothing saved yet.
		expect(persisted).toEqual({ 'node:Poller': { count: 1 } });

		const failed = await pollOnce({ ...common, node: node(true) });
		expect(failed.error?.message).toBe('poll failed');
		// The throw leaves poll()'s writes in memory and the database as it was.
		expect(staticData).toEqual({ 'node:Poller': { count: 3 } });
		expect(persisted).toEqual({ 'node:Poller': { count: 1 } });

		const fourth = await pollOnce({ ...common, node: node() });
		expect(fourth.result).toBeNull();
		const fifth = await pollOnce({ ...common, node: node() });
		expect(fifth.result).toEqual([[{ json: { count: 5 } }]]);
		expect(persisted).toEqual({ 'node:Poller': { count: 5 } });
	});

	it('runs a manual poll on a copy of the saved data and throws its error', async () => {
		const staticData: IDataObject = {};
		const persisted: IDataObject = { 'node:Poller': { count: 4 } };
		const common = {
			nodeTypes: { [POLLER]: new Poller() },
			staticData,
			persisted,
			mode: 'manual' as const,
		};
		const manual = await pollOnce({ ...common, node: node() });
		expect(manual.result).toEqual([[{ json: { count: 5 } }]]);
		expect(persisted).toEqual({ 'node:Poller': { count: 4 } });
		expect(staticData).toEqual({});
		await expect(pollOnce({ ...common, node: node(true) })).rejects.toThrow('poll failed');
	});
});

describe('testCredential, as n8n runs a credential test', () => {
	// Not the sandbox: these stand-in rules need a 403, and a 200 whose body says "bad" to a GET.
	let server: Server;
	let baseUrl = '';
	const seen: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
	beforeEach(async () => {
		seen.length = 0;
		server = createServer((req, res) => {
			seen.push({ url: req.url ?? '', headers: req.headers });
			const status = /^\/status\/(\d{3})$/.exec(req.url ?? '');
			res.writeHead(status ? Number(status[1]) : 200, { 'Content-Type': 'application/json' });
			res.end(status ? `{"error":"status ${status[1]}"}` : '{"error":"bad"}');
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	});
	afterEach(async () => {
		server.closeAllConnections();
		await new Promise<void>((resolve) => server.close(() => resolve()));
	});

	// `rules` is typed as one kind per credential type, so there is one type per kind.
	const testedType = (
		name: string,
		rules: NonNullable<ICredentialType['test']>['rules'],
	): ICredentialType => ({
		...standInCredential,
		name,
		properties: [
			...standInCredential.properties,
			{ displayName: 'Test Path', name: 'testPath', type: 'string', default: '/status/200' },
		],
		test: {
			request: { baseURL: '={{$credentials.baseUrl}}', url: '={{$credentials.testPath}}' },
			rules,
		},
	});
	const credentialTypes = [
		testedType('codeRuleApi', [
			{ type: 'responseCode', properties: { value: 403, message: 'Forbidden by rule' } },
		]),
		testedType('bodyRuleApi', [
			{
				type: 'responseSuccessBody',
				properties: { key: 'error', value: 'bad', message: 'Body says bad' },
			},
		]),
	];
	const check = async (type: string, testPath: string | undefined, base = baseUrl) =>
		await testCredential(
			type,
			{ baseUrl: base, username: USERNAME, password: PASSWORD, ...(testPath ? { testPath } : {}) },
			{ credentialTypes },
		);

	it.each<[string, string | undefined, string, string]>([
		['codeRuleApi', undefined, 'OK', 'Connection successful!'], // the property default applies
		['codeRuleApi', '/status/401', 'Error', 'Unauthorized'],
		['codeRuleApi', '/status/403', 'Error', 'Forbidden by rule'],
		['codeRuleApi', '/status/500', 'Error', 'Internal Server Error'],
		['bodyRuleApi', '/status/403', 'Error', 'Forbidden'],
		['bodyRuleApi', '/body-bad', 'Error', 'Body says bad'],
		['codeRuleApi', '/body-bad', 'OK', 'Connection successful!'],
	])('%s %s gives %s: %s', async (type, testPath, status, message) => {
		expect(await check(type, testPath)).toEqual({ status, message });
		expect(seen[0].url).toBe(testPath ?? '/status/200');
		expect(seen[0].headers.authorization).toBe(
			`Basic ${Buffer.from(`${USERNAME}:${PASSWORD}`).toString('base64')}`,
		);
	});

	it('reports a network failure by its code', async () => {
		expect(await check('codeRuleApi', '/x', await stoppedBaseUrl())).toEqual({
			status: 'Error',
			message: 'ECONNREFUSED',
		});
	});
});
