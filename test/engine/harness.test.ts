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

// ---------------------------------------------------------------------------------------
// A throwaway server on 127.0.0.1 that records requests and answers by path.
// ---------------------------------------------------------------------------------------

interface Seen {
	method: string;
	url: string;
	headers: IncomingHttpHeaders;
}

const BIG_ID = '12345678901234567891';

async function startServer(): Promise<{ server: Server; baseUrl: string; seen: Seen[] }> {
	const seen: Seen[] = [];
	const server = createServer((req, res) => {
		seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
		if (req.url === '/hang') return; // never answers: the client's timeout fires
		if (req.url === '/reset') {
			req.socket.destroy(); // the connection drops after the request was sent
			return;
		}
		const status = /^\/status\/(\d{3})/.exec(req.url ?? '');
		if (status) {
			res.writeHead(Number(status[1]), { 'Content-Type': 'application/json', 'Retry-After': '7' });
			res.end(`{"error":"status ${status[1]}","batch_id":${BIG_ID}}`);
			return;
		}
		if (req.url === '/body-bad') {
			res.writeHead(200, { 'Content-Type': 'application/json' });
			res.end('{"error":"bad"}');
			return;
		}
		if (req.url?.startsWith('/big')) {
			res.writeHead(200, { 'Content-Type': 'application/json' });
			res.end(`{"batch_id":${BIG_ID}}`);
			return;
		}
		res.writeHead(200, { 'Content-Type': 'text/plain' });
		res.end(`ok ${req.url}`);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return { server, baseUrl: `http://127.0.0.1:${port}`, seen };
}

async function stop(server: Server | undefined): Promise<void> {
	if (!server?.listening) return;
	server.closeAllConnections();
	await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** A port that refuses connections: bound, then closed. */
async function closedPort(): Promise<number> {
	const probe = createServer();
	await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
	const { port } = probe.address() as AddressInfo;
	await new Promise<void>((resolve) => probe.close(() => resolve()));
	return port;
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

let server: Server | undefined;
let baseUrl = '';
let seen: Seen[] = [];

beforeEach(async () => {
	({ server, baseUrl, seen } = await startServer());
});

afterEach(async () => {
	await stop(server);
	server = undefined;
});

function run(
	probe: Partial<INode> & { parameters: INode['parameters'] },
	items?: IDataObject[],
	base = baseUrl,
) {
	return runWorkflow({
		nodes: workflowNodes(probe, items),
		connections,
		nodeTypes: { [PROBE]: new HttpProbe() },
		credentialTypes,
		credentials: { bulkSmsApi: { baseUrl: base, username: 'user', password: 'pa:ss' } },
	});
}

describe('runWorkflow', () => {
	it('applies the generic auth of the credential type as HTTP Basic', async () => {
		const result = await run({ parameters: { path: '/hello' } });
		expect(errorOf(result, 'Probe')).toBeUndefined();
		expect(seen).toHaveLength(1);
		expect(seen[0].headers.authorization).toBe(
			`Basic ${Buffer.from('user:pa:ss').toString('base64')}`,
		);
	});

	it('resolves expressions from the previous node per item and keeps pairedItem', async () => {
		const result = await run({ parameters: { path: '=/items/{{ $json.x }}' } }, [
			{ x: 'a' },
			{ x: 'b' },
			{ x: 'c' },
		]);
		expect(seen.map((s) => s.url)).toEqual(['/items/a', '/items/b', '/items/c']);
		const output = outputOf(result, 'Probe');
		expect(output.map((o) => o.json.response)).toEqual([
			'ok /items/a',
			'ok /items/b',
			'ok /items/c',
		]);
		expect(output.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	});

	it('stops the run at the failing node, with the error, without continueOnFail', async () => {
		const result = await run({ parameters: { path: '=/{{ $json.p }}' } }, [
			{ p: 'fine' },
			{ p: 'status/500' },
		]);
		const error = errorOf(result, 'Probe');
		expect(error).toMatchObject({ name: 'NodeApiError', httpCode: '500' });
		expect(result.status).toBe('error');
	});

	it('turns failures into error items with continueOnFail', async () => {
		const result = await run(
			{ parameters: { path: '=/{{ $json.p }}' }, onError: 'continueRegularOutput' },
			[{ p: 'fine' }, { p: 'status/500' }],
		);
		expect(errorOf(result, 'Probe')).toBeUndefined();
		const output = outputOf(result, 'Probe');
		expect(output[0].json.response).toBe('ok /fine');
		expect(output[1].json.error).toEqual(expect.any(String));
		expect(output[1].pairedItem).toEqual({ item: 1 });
	});
});

describe('HTTP behaviour of httpRequestWithAuthentication (facts the transport relies on)', () => {
	const probe = async (path: string, options: Partial<IHttpRequestOptions>, base = baseUrl) => {
		const result = await run(
			{ parameters: { path, requestOptions: JSON.stringify(options), capture: true } },
			[{}],
			base,
		);
		return outputOf(result, 'Probe')[0].json;
	};

	const raw = (status: number) => `{"error":"status ${status}","batch_id":${BIG_ID}}`;

	it.each<[string, string, Partial<IHttpRequestOptions>, unknown]>([
		// axios' forcedJSONParsing parses any JSON-looking body unless responseType is text,
		// whatever `json` says: ids beyond 2^53 are corrupted.
		['default', '/big', {}, { batch_id: 12345678901234567000 }],
		['json: false', '/big', { json: false }, { batch_id: 12345678901234567000 }],
		['encoding: text', '/big', { encoding: 'text' }, `{"batch_id":${BIG_ID}}`],
		[
			'text, full response',
			'/big',
			{ json: false, encoding: 'text', returnFullResponse: true },
			expect.objectContaining({
				body: `{"batch_id":${BIG_ID}}`,
				statusCode: 200,
				statusMessage: 'OK',
			}),
		],
		[
			'text, full response, 500 ignored',
			'/status/500',
			{ encoding: 'text', returnFullResponse: true, ignoreHttpStatusErrors: true },
			expect.objectContaining({ body: raw(500), statusCode: 500 }),
		],
	])('returns the body (%s)', async (_label, path, options, expected) => {
		expect((await probe(path, options)).response).toEqual(expected);
	});

	it.each<[string, Partial<IHttpRequestOptions>, IDataObject, number]>([
		// A 401 is sent twice: httpRequestWithAuthentication retries once after preAuthentication.
		[
			'/status/401',
			{ encoding: 'text' },
			{
				httpCode: '401',
				message: 'Authorization failed - please check your credentials',
				causeStatus: 401,
				causeCode: 'ERR_BAD_REQUEST',
				causeResponseData: raw(401),
			},
			2,
		],
		[
			'/status/404',
			{ encoding: 'text' },
			{
				httpCode: '404',
				message: 'The resource you are requesting could not be found',
				causeStatus: 404,
				causeResponseData: raw(404),
			},
			1,
		],
		[
			'/status/429',
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
			'/status/500',
			{ encoding: 'text' },
			{
				httpCode: '500',
				message: 'The service was not able to process your request',
				description: 'Request failed with status code 500',
				causeStatus: 500,
				causeCode: 'ERR_BAD_RESPONSE',
				causeResponseData: raw(500),
			},
			1,
		],
		[
			'/status/503',
			{ encoding: 'text' },
			{ httpCode: '503', causeStatus: 503, causeRetryAfter: '7' },
			1,
		],
		[
			'/hang',
			{ encoding: 'text', timeout: 300 },
			{
				httpCode: 'ECONNABORTED',
				causeCode: 'ECONNABORTED',
				message: 'The connection was aborted, perhaps the server is offline',
			},
			1,
		],
		['/reset', { encoding: 'text' }, { httpCode: 'ECONNRESET', causeCode: 'ECONNRESET' }, 1],
	])('throws a NodeApiError for %s', async (path, options, expected, requests) => {
		const out = await probe(path, options);
		expect(out.error).toMatchObject({ name: 'NodeApiError', causeName: 'AxiosError', ...expected });
		expect(seen).toHaveLength(requests);
	});

	it('sends a 401 once when status errors are ignored', async () => {
		const out = await probe('/status/401', {
			encoding: 'text',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
		});
		expect(out.response).toMatchObject({ statusCode: 401, body: raw(401) });
		expect(seen).toHaveLength(1);
	});

	it('throws a NodeApiError for a refused connection', async () => {
		const port = await closedPort();
		const out = await probe('/x', { encoding: 'text' }, `http://127.0.0.1:${port}`);
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
			{ baseUrl: base, username: 'user', password: 'pa:ss', ...(testPath ? { testPath } : {}) },
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
			`Basic ${Buffer.from('user:pa:ss').toString('base64')}`,
		);
	});

	it('reports a network failure by its code', async () => {
		const port = await closedPort();
		expect(await check('codeRuleApi', '/x', `http://127.0.0.1:${port}`)).toEqual({
			status: 'Error',
			message: 'ECONNREFUSED',
		});
	});
});
