/*
 * Drives a webhook node's webhook() the way n8n 2.41.1's production webhooks do
 * (packages/cli: live-webhooks.ts executeWebhook, webhook-helpers.ts executeWebhook), through
 * n8n-core's own WebhookContext, behind a real HTTP listener on 127.0.0.1, so that a test (or the
 * sandbox's callbacks) reaches the node over HTTP at /webhook/<webhookId>/<path>.
 *
 * What is mirrored, and only that:
 * - per request, a new Workflow whose static data is a copy of the saved one (n8n loads it from
 *   the database for every call), and after the node's answer the data is saved back when it
 *   changed (WorkflowStaticDataService.saveStaticData: whole object, last writer wins);
 * - the request as n8n hands it over: rawBody (the bytes, read for every body n8n does not
 *   treat as multipart), `body` parsed by Content-Type (JSON with n8n's lossy parse, forms; XML
 *   left unparsed here since the node reads rawBody), `query`, `params`, `contentType`;
 * - the answer: what the node wrote itself (noWebhookResponse), else for workflowData the
 *   onReceived answer 200 {"message":"Workflow was started"}, else webhookResponse as JSON; a
 *   throw is answered 500, as n8n's "Error in workflow".
 * A JSON body that does not parse is answered 422, as n8n's body parser does, before the node.
 * The items a call would start a workflow with are recorded in `executions`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { WebhookContext } from 'n8n-core';
import { deepCopy } from 'n8n-workflow';
import type {
	IDataObject,
	INode,
	INodeExecutionData,
	IWebhookData,
	IWebhookDescription,
	IWebhookResponseData,
} from 'n8n-workflow';

import { buildAdditionalData, buildWorkflow, type EngineOptions } from './harness';

export interface WebhookSpec extends EngineOptions {
	/** The trigger node; give it a `webhookId`, as the editor does. */
	node: INode;
	/** The workflow's saved static data. Pass the same object to see it change between calls. */
	staticData?: IDataObject;
	/** Port to listen on (to come back where a receiver was); default any free one. */
	port?: number;
}

export interface WebhookCall {
	at: number;
	method: string;
	status: number;
	/** The items the workflow was started with; undefined when no execution started. */
	items?: INodeExecutionData[];
	/** What webhook() threw, if it did. */
	error?: Error;
}

export interface WebhookServer {
	/** e.g. http://127.0.0.1:41234/webhook/<webhookId>/status: the production webhook URL. */
	url: string;
	baseUrl: string;
	calls: WebhookCall[];
	/** The items of every started execution, in the order they were started. */
	executions(): INodeExecutionData[][];
	staticData: IDataObject;
	stop(): Promise<void>;
}

export async function startWebhookServer(spec: WebhookSpec): Promise<WebhookServer> {
	const staticData = spec.staticData ?? {};
	const calls: WebhookCall[] = [];
	const server: Server = createServer((req, res) => {
		handle({ ...spec, staticData }, req, res).then(
			(call) => calls.push(call),
			(error) => {
				if (!res.headersSent) res.writeHead(500).end(String(error));
			},
		);
	});
	await new Promise<void>((resolve) => server.listen(spec.port ?? 0, '127.0.0.1', resolve));
	const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	const path = webhookDescriptions(spec)[0].path;
	return {
		baseUrl,
		url: `${baseUrl}/webhook/${spec.node.webhookId}/${path}`,
		calls,
		executions: () => calls.flatMap((c) => (c.items ? [c.items] : [])),
		staticData,
		stop: () => {
			server.closeAllConnections();
			return new Promise((resolve) => server.close(() => resolve()));
		},
	};
}

function webhookDescriptions(spec: WebhookSpec): IWebhookDescription[] {
	const workflow = buildWorkflow({ ...spec, nodes: [spec.node], connections: {} });
	const type = workflow.nodeTypes.getByNameAndVersion(spec.node.type, spec.node.typeVersion);
	const webhooks = type.description.webhooks;
	if (!webhooks?.length || !type.webhook)
		throw new Error(`harness: ${spec.node.type} has no webhook`);
	return webhooks;
}

async function handle(
	spec: WebhookSpec & { staticData: IDataObject },
	req: IncomingMessage,
	res: ServerResponse,
): Promise<WebhookCall> {
	const url = new URL(req.url ?? '/', 'http://webhook');
	const method = req.method ?? 'GET';
	const description = webhookDescriptions(spec).find(
		(w) => w.httpMethod === method && url.pathname === `/webhook/${spec.node.webhookId}/${w.path}`,
	);
	if (!description) {
		res.writeHead(404).end(`no webhook for ${method} ${url.pathname}`);
		return { at: Date.now(), method, status: 404 };
	}
	if (!(await asN8nRequest(req, url))) {
		// n8n's body parser refuses a body that does not parse as its Content-Type says.
		res.writeHead(422, { 'Content-Type': 'application/json' });
		res.end(JSON.stringify({ message: 'Failed to parse request body' }));
		return { at: Date.now(), method, status: 422 };
	}
	// n8n loads the workflow, static data included, from the database for every call.
	const workflow = buildWorkflow({
		...spec,
		nodes: [spec.node],
		connections: {},
		staticData: deepCopy(spec.staticData),
	});
	workflow.active = true;
	const node = workflow.getNode(spec.node.name) as INode;
	const additionalData = buildAdditionalData(workflow, spec, 'webhook');
	additionalData.httpRequest = req as never;
	additionalData.httpResponse = res as never;
	const webhookData: IWebhookData = {
		httpMethod: description.httpMethod as IWebhookData['httpMethod'],
		node: node.name,
		path: `${spec.node.webhookId}/${description.path}`,
		webhookDescription: description,
		workflowId: workflow.id,
		workflowExecuteAdditionalData: additionalData,
	};
	const context = new WebhookContext(
		workflow,
		node,
		additionalData,
		'webhook',
		webhookData,
		[],
		null,
	);
	const type = workflow.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
	let result: IWebhookResponseData;
	try {
		result = await type.webhook!.call(context);
	} catch (error) {
		res.writeHead(500, { 'Content-Type': 'application/json' });
		res.end(JSON.stringify({ message: 'Error in workflow' }));
		return { at: Date.now(), method, status: 500, error: error as Error };
	}
	// live-webhooks.ts saves the static data (when changed) before the answer goes out.
	if (workflow.staticData.__dataChanged === true) {
		for (const key of Object.keys(spec.staticData)) delete spec.staticData[key];
		Object.assign(spec.staticData, deepCopy(workflow.staticData));
	}
	return { at: Date.now(), method, ...answer(result, res) };
}

function answer(
	result: IWebhookResponseData,
	res: ServerResponse,
): Pick<WebhookCall, 'status' | 'items'> {
	if (result.noWebhookResponse) return { status: res.statusCode };
	if (result.workflowData) {
		res.writeHead(200, { 'Content-Type': 'application/json' });
		res.end(JSON.stringify({ message: 'Workflow was started' }));
		return { status: 200, items: result.workflowData[0] ?? [] };
	}
	res.writeHead(200, { 'Content-Type': 'application/json' });
	res.end(JSON.stringify(result.webhookResponse ?? { message: 'Webhook call received' }));
	return { status: 200 };
}

/** Gives the request what n8n's body parser and express add to it; false when it does not parse. */
async function asN8nRequest(req: IncomingMessage, url: URL): Promise<boolean> {
	const chunks: Buffer[] = [];
	for await (const chunk of req) chunks.push(chunk as Buffer);
	const raw = Buffer.concat(chunks);
	const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
	const request = req as IncomingMessage & Record<string, unknown>;
	request.rawBody = raw;
	request.contentType = contentType;
	request.query = Object.fromEntries(url.searchParams);
	request.params = {};
	try {
		request.body = parsedBody(raw.toString('utf8'), contentType);
		return true;
	} catch {
		return false;
	}
}

function parsedBody(text: string, contentType: string): unknown {
	if (text === '') return {};
	if (contentType === 'application/json') return JSON.parse(text) as unknown;
	if (contentType === 'application/x-www-form-urlencoded')
		return Object.fromEntries(new URLSearchParams(text));
	if (contentType === 'text/plain') return text;
	return {};
}
