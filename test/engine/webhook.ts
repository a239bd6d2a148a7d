/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/*
 * Drives a webhook node's webhook() the way n8n 2.41.1's production webhooks do
 * (packages/cli: live-webhooks.ts executeWebhook, webhook-helpers.ts executeWebhook), through
 * n8n-core's own WebhookContext, behind a real HTTP listener on 127.0.0.1, so that a test (or the
 * sandbox's callbacks) reaches the node over HTTP at /webhook/<webhookId>/<path>.
 *
 * What is mirrored, and only that:
 * - per request, a new Workflow whose static data is a copy of the saved one (n8n loads it from
 *   the database for every call; none at all while nothing was saved), and after the node's
 *   answer the data is saved back when it changed (WorkflowStaticDataService.saveStaticData:
 *   whole object, last writer wins);
 * - a call that starts an execution: WorkflowRunner.run first builds a Workflow on the very same
 *   static data object (establishContextForPersistence), which clears its "changed" flag, so
 *   what webhook() wrote is NOT saved (unless there was no saved data yet); the execution then
 *   runs on static data loaded afresh, from the trigger node (whose execute(), if it has one,
 *   runs first) through n8n-core's WorkflowExecute, and its changes are saved at its end.
 *   n8n answers onReceived once the execution has started (`answer: 'started'`, for tests of
 *   what overlaps; `idle()` waits for the executions); by default the answer here waits until
 *   it has ended, so that a test reads what the execution saved right after its post;
 * - n8n's database as one object per workflow: its static data, and the records of n8n's
 *   deduplication store (deduplication.ts) under a workflow id of its own, so that receivers
 *   given the same `staticData` share both, as processes of one n8n share its database;
 * - the editor's test webhook (`mode: 'manual'`): nothing saved to static data, as n8n saves none;
 * - queue mode: `worker` runs the executions with another instance of the node type, as another
 *   process would (a node type instance keeps what one process knows);
 * - an execution that cannot start (`refuseExecution`): answered 500 without one, as n8n does
 *   when WorkflowRunner.run throws;
 * - the request as n8n hands it over: rawBody (the bytes, read for every body n8n does not
 *   treat as multipart), `body` parsed by Content-Type (JSON with n8n's lossy parse, forms; XML
 *   left unparsed here since the node reads rawBody), `query`, `params`, `contentType`;
 * - activation (webhook.service.ts createWebhookIfNotExists): before it listens, the node's
 *   webhookMethods checkExists (and create when that says false) run through n8n-core's
 *   HookContext; a throw there refuses the activation, so startWebhookServer rejects with it;
 *   `runWebhookSetup` runs the same for "Test this trigger" (mode 'manual');
 * - the answer: what the node wrote itself (noWebhookResponse), else for workflowData the
 *   onReceived answer of webhook-helpers.ts (extractWebhookOnReceivedResponse): the
 *   description's responseData ('firstEntryJson' when it has none) sent as it is when it is
 *   truthy, none for 'noData', else the node's webhookResponse, else {"message":"Workflow was
 *   started"}; without workflowData, webhookResponse as JSON; a throw is answered 500, as
 *   n8n's "Error in workflow".
 * A JSON body that does not parse is answered 422, as n8n's body parser does, before the node.
 * What the trigger node output in each execution a call started is kept, for `executions()`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { HookContext, WebhookContext, WorkflowExecute } from 'n8n-core';
import { createRunExecutionData, deepCopy } from 'n8n-workflow';
import type {
	IDataObject,
	INode,
	INodeExecutionData,
	IWebhookData,
	IWebhookDescription,
	IWebhookResponseData,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';

import { installDeduplication } from './deduplication';
import type { AnyNodeType } from './nodeTypes';
import { buildAdditionalData, buildWorkflow, type EngineOptions } from './workflow';

export interface WebhookSpec extends EngineOptions {
	/** The trigger node; give it a `webhookId`, as the editor does. */
	node: INode;
	/** The workflow's saved static data. Pass the same object to see it change between calls. */
	staticData?: IDataObject;
	/** Port to listen on (to come back where a receiver was); default any free one. */
	port?: number;
	/** When n8n's onReceived answer goes out: once the execution 'ended' (default) or 'started'. */
	answer?: 'ended' | 'started';
	/** With 'started': how long n8n takes to start an execution, in ms (default 10). */
	startMs?: number;
	/** Queue mode: the node type instance of the process that runs executions (a worker). */
	worker?: AnyNodeType;
	/** 'manual' for the editor's test webhook ("Test this trigger"); 'webhook' (production) by default. */
	mode?: 'webhook' | 'manual';
}

export interface WebhookServer {
	/** e.g. http://127.0.0.1:41234/webhook/<webhookId>/status: the production webhook URL. */
	url: string;
	/** The items of every started execution, in the order they were started. */
	executions(): INodeExecutionData[][];
	staticData: IDataObject;
	/** Resolves once every call and execution under way has ended. */
	idle(): Promise<void>;
	/**
	 * Stops as n8n stops on SIGTERM: no new call is taken, those under way are answered and
	 * their executions end (stop() instead cuts every connection at once).
	 */
	drain(): Promise<void>;
	/** The `nth` execution started from now fails to start, as when n8n's database refuses it. */
	refuseExecution(nth: number): void;
	stop(): Promise<void>;
}

/** One workflow id per database (saved static data), so that n8n's records follow it. */
const workflowIds = new WeakMap<IDataObject, string>();
let databases = 0;

function workflowIdOf(staticData: IDataObject): string {
	let id = workflowIds.get(staticData);
	if (!id) {
		id = `harness-workflow-${++databases}`;
		workflowIds.set(staticData, id);
	}
	return id;
}

export async function startWebhookServer(spec: WebhookSpec): Promise<WebhookServer> {
	installDeduplication();
	const staticData = spec.staticData ?? {};
	await runWebhookSetup({ ...spec, staticData }, 'trigger', 'activate');
	const running = new Set<Promise<unknown>>();
	const receiver: Receiver = {
		...spec,
		staticData,
		workflowId: workflowIdOf(staticData),
		executions: [],
		running,
		refused: 0,
	};
	const server: Server = createServer((req, res) => {
		const handling = handle(receiver, req, res).catch((error) => {
			if (!res.headersSent) res.writeHead(500).end(String(error));
		});
		running.add(handling);
		void handling.finally(() => running.delete(handling));
	});
	await new Promise<void>((resolve) => server.listen(spec.port ?? 0, '127.0.0.1', resolve));
	const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	const path = webhookDescriptions(spec)[0].path;
	return {
		url: `${baseUrl}/webhook/${spec.node.webhookId}/${path}`,
		executions: () => [...receiver.executions],
		staticData,
		refuseExecution: (nth) => {
			receiver.refused = nth;
		},
		idle: async () => {
			while (running.size > 0) await Promise.allSettled([...running]);
		},
		drain: async () => {
			const closed = new Promise((resolve) => server.close(resolve));
			server.closeIdleConnections();
			while (running.size > 0) await Promise.allSettled([...running]);
			server.closeAllConnections();
			await closed;
		},
		stop: () => {
			server.closeAllConnections();
			return new Promise((resolve) => server.close(() => resolve()));
		},
	};
}

/**
 * What n8n runs when a webhook is registered (webhook.service.ts runWebhookMethod): the node's
 * webhookMethods for its first webhook, checkExists then create when it says false, each with
 * a HookContext. Mode 'trigger' is an activation, 'manual' the editor's "Test this trigger".
 */
export async function runWebhookSetup(
	spec: WebhookSpec,
	mode: WorkflowExecuteMode,
	activation: WorkflowActivateMode,
): Promise<void> {
	const description = webhookDescriptions(spec)[0];
	const workflow = buildWorkflow({ ...spec, nodes: [spec.node], connections: {} });
	const node = workflow.getNode(spec.node.name) as INode;
	const type = workflow.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
	const methods = type.webhookMethods?.[description.name];
	if (!methods) return;
	const additionalData = buildAdditionalData(workflow, spec, mode);
	const webhookData: IWebhookData = {
		httpMethod: description.httpMethod as IWebhookData['httpMethod'],
		node: node.name,
		path: `${spec.node.webhookId}/${description.path}`,
		webhookDescription: description,
		workflowId: workflow.id,
		workflowExecuteAdditionalData: additionalData,
	};
	const context = () =>
		new HookContext(workflow, node, additionalData, mode, activation, webhookData);
	if (!(await methods.checkExists.call(context()))) await methods.create.call(context());
}

function webhookDescriptions(spec: WebhookSpec): IWebhookDescription[] {
	const workflow = buildWorkflow({ ...spec, nodes: [spec.node], connections: {} });
	const type = workflow.nodeTypes.getByNameAndVersion(spec.node.type, spec.node.typeVersion);
	const webhooks = type.description.webhooks;
	if (!webhooks?.length || !type.webhook)
		throw new Error(`harness: ${spec.node.type} has no webhook`);
	return webhooks;
}

/** A listening receiver: its spec, its database, what its executions output and what still runs. */
interface Receiver extends WebhookSpec {
	staticData: IDataObject;
	workflowId: string;
	executions: INodeExecutionData[][];
	running: Set<Promise<unknown>>;
	refused: number;
}

async function handle(spec: Receiver, req: IncomingMessage, res: ServerResponse): Promise<void> {
	const url = new URL(req.url ?? '/', 'http://webhook');
	const method = req.method ?? 'GET';
	const description = webhookDescriptions(spec).find(
		(w) => w.httpMethod === method && url.pathname === `/webhook/${spec.node.webhookId}/${w.path}`,
	);
	if (!description) {
		res.writeHead(404).end(`no webhook for ${method} ${url.pathname}`);
		return;
	}
	if (!(await asN8nRequest(req, url))) {
		// n8n's body parser refuses a body that does not parse as its Content-Type says.
		res.writeHead(422, { 'Content-Type': 'application/json' });
		res.end(JSON.stringify({ message: 'Failed to parse request body' }));
		return;
	}
	// n8n loads the workflow, static data included, from the database for every call.
	const loaded = saved(spec.staticData);
	const workflow = buildWorkflow({
		...spec,
		nodes: [spec.node],
		connections: {},
		staticData: loaded,
	});
	workflow.active = true;
	const node = workflow.getNode(spec.node.name) as INode;
	const additionalData = buildAdditionalData(workflow, spec, spec.mode ?? 'webhook');
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
		spec.mode ?? 'webhook',
		webhookData,
		[],
		null,
	);
	const type = workflow.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
	let result: IWebhookResponseData;
	try {
		result = await type.webhook!.call(context);
	} catch {
		res.writeHead(500, { 'Content-Type': 'application/json' });
		res.end(JSON.stringify({ message: 'Error in workflow' }));
		return;
	}
	if (result.workflowData) {
		// WorkflowRunner.run: a Workflow on the same object clears its flag, then the execution.
		buildWorkflow({ ...spec, nodes: [spec.node], connections: {}, staticData: loaded });
		if (spec.answer === 'started') await startingTime(spec.startMs);
		if (spec.refused > 0 && --spec.refused === 0) {
			// WorkflowRunner.run threw (the database refused the execution): n8n answers 500.
			res.writeHead(500, { 'Content-Type': 'application/json' });
			res.end(JSON.stringify({ code: 0, message: 'Execution could not be started' }));
			return;
		}
		const execution = execute(spec, result.workflowData[0] ?? []);
		spec.running.add(execution);
		void execution.finally(() => spec.running.delete(execution)).catch(() => undefined);
		if (spec.answer !== 'started') await execution;
	}
	// live-webhooks.ts saves the static data (when changed) before the answer goes out; the
	// editor's test webhooks (test-webhooks.ts) save none.
	const saves = spec.mode !== 'manual';
	if (saves && workflow.staticData.__dataChanged === true)
		store(spec.staticData, workflow.staticData);
	answer(result, description, res);
}

/**
 * What n8n does before it answers onReceived (WorkflowRunner.run: the workflow's static data read
 * again, an execution row written): milliseconds in which other callbacks are received, so that
 * executions of copies that arrive together overlap.
 */
function startingTime(ms = 10): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The saved static data as n8n hands it to a new Workflow: none while nothing was saved. */
function saved(staticData: IDataObject): IDataObject | undefined {
	return Object.keys(staticData).length > 0 ? deepCopy(staticData) : undefined;
}

function store(target: IDataObject, source: IDataObject): void {
	for (const key of Object.keys(target)) delete target[key];
	Object.assign(target, deepCopy(source));
}

/**
 * The execution a webhook starts, as n8n runs it: static data loaded afresh, the trigger node on
 * the stack with the webhook's items, WorkflowExecute in mode 'webhook'; its static data saved at
 * the end when it changed (the execution lifecycle's workflowExecuteAfter). Keeps what the
 * trigger node output in the execution.
 */
async function execute(spec: Receiver, items: INodeExecutionData[]): Promise<void> {
	const nodeTypes = spec.worker
		? { ...spec.nodeTypes, [spec.node.type]: spec.worker }
		: spec.nodeTypes;
	const workflow = buildWorkflow({
		...spec,
		nodeTypes,
		nodes: [spec.node],
		connections: {},
		staticData: saved(spec.staticData),
	});
	const node = workflow.getNode(spec.node.name) as INode;
	const runData = createRunExecutionData({
		executionData: { nodeExecutionStack: [{ node, data: { main: [items] }, source: null }] },
	});
	const mode = spec.mode ?? 'webhook';
	const additionalData = buildAdditionalData(workflow, spec, mode);
	const run = await new WorkflowExecute(additionalData, mode, runData).processRunExecutionData(
		workflow,
	);
	const task = run.data.resultData.runData[node.name]?.[0];
	if (task?.error) throw new Error(`harness: the execution failed: ${task.error.message}`);
	// n8n saves no static data for a manual execution (execution-lifecycle-hooks.ts).
	const saves = mode !== 'manual';
	if (saves && workflow.staticData.__dataChanged === true)
		store(spec.staticData, workflow.staticData);
	spec.executions.push(task?.data?.main?.[0] ?? []);
}

function answer(
	result: IWebhookResponseData,
	description: IWebhookDescription,
	res: ServerResponse,
): void {
	if (result.noWebhookResponse) return;
	const body = result.workflowData
		? onReceivedBody(result, description.responseData ?? 'firstEntryJson')
		: (result.webhookResponse ?? { message: 'Webhook call received' });
	if (body === undefined) {
		res.writeHead(200).end();
	} else if (typeof body === 'string') {
		// express's res.send of a string, as sendSuccessResponse does.
		res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(body);
	} else {
		res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
	}
}

/** n8n's extractWebhookOnReceivedResponse, for a responseData that holds no expression. */
function onReceivedBody(result: IWebhookResponseData, responseData: unknown): unknown {
	if (responseData === 'noData') return undefined;
	if (responseData) return responseData;
	return result.webhookResponse ?? { message: 'Workflow was started' };
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
