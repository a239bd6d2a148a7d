/* eslint-disable
	@n8n/community-nodes/no-hardcoded-secrets,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/** What the status trigger tests share: the node as a workflow would hold it, behind n8n's webhook path. */
import * as path from 'node:path';

import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	INode,
	INodeParameters,
} from 'n8n-workflow';

import { loadPackageNodeType, PACKAGE_NAME } from '../engine/harness';
import type { AnyNodeType } from '../engine/nodeTypes';
import { startWebhookServer, type WebhookServer, type WebhookSpec } from '../engine/webhook';

export const STATUS_TRIGGER = `${PACKAGE_NAME}.bulkSmsStatusTrigger`;
export const SECRET = 'c2f1e0d3b4a5968778695a4b3c2d1e0f';
export const WEBHOOK_ID = '5b1f7c9e-0d1a-4c57-9a53-6f2f0e6a1b2c';

/**
 * The node as a workflow holds it. Parameters at their defaults are left out, as n8n saves
 * them; credential references are attached by the engine kit for the credentials a test gives.
 */
export function triggerNode(parameters: INodeParameters = {}): INode {
	return {
		id: 'status-trigger',
		name: 'Bulk SMS Status Trigger',
		type: STATUS_TRIGGER,
		typeVersion: 1.1,
		position: [0, 0],
		webhookId: WEBHOOK_ID,
		parameters,
	};
}

export interface TriggerOptions {
	parameters?: INodeParameters;
	/** Credential data by type. Default: the callback secret credential holding SECRET. */
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	/** The Bulk SMS credential's time zone; no such credential when undefined. */
	timeZone?: string;
	/** The credential's Base URL (the trigger never calls it). */
	baseUrl?: string;
	staticData?: IDataObject;
	port?: number;
	/** When n8n answers a callback that starts an execution (test/engine/webhook.ts). */
	answer?: 'ended' | 'started';
	startMs?: number;
	/** The n8n process receiving: its node type instance (default a new one, a new process). */
	process?: AnyNodeType;
	/** Queue mode: the process that runs the executions. */
	worker?: AnyNodeType;
	/** 'manual': the editor's test webhook. */
	mode?: 'webhook' | 'manual';
}

/**
 * The Status Trigger as a new n8n process has it (a node type instance keeps what one process
 * knows), loaded by path as the engine kit loads the package's nodes.
 */
export function newProcess(): AnyNodeType {
	return loadPackageNodeType(STATUS_TRIGGER) as AnyNodeType;
}

/** The Bulk SMS Callback API credential holding SECRET. */
export const CALLBACK_SECRET = { bulkSmsCallbackApi: { secret: SECRET } };

export async function startTrigger(options: TriggerOptions = {}): Promise<WebhookServer> {
	return await startWebhookServer(triggerSpec(options));
}

/** What startTrigger gives the engine kit, for tests that drive the node themselves. */
export function triggerSpec(options: TriggerOptions = {}): WebhookSpec {
	const { timeZone } = options;
	return {
		node: triggerNode(options.parameters),
		nodeTypes: { [STATUS_TRIGGER]: options.process ?? newProcess() },
		staticData: options.staticData,
		port: options.port,
		answer: options.answer,
		startMs: options.startMs,
		worker: options.worker,
		mode: options.mode,
		credentials: {
			...(options.credentials ?? CALLBACK_SECRET),
			...(timeZone === undefined
				? {}
				: { bulkSmsApi: serviceCredential(timeZone, options.baseUrl) }),
		},
	};
}

function serviceCredential(
	timeZone: string,
	baseUrl = 'http://127.0.0.1:8555',
): ICredentialDataDecryptedObject {
	return {
		baseUrl,
		username: 'demo',
		password: 'demo-password',
		timeZone,
	};
}

export interface Posted {
	status: number;
	body: string;
	headers: Headers;
}

/** POSTs a callback body to the trigger, with the secret unless told otherwise. */
export async function post(
	server: WebhookServer,
	body: string,
	contentType = 'application/json',
	{
		token = SECRET,
		headers = {},
	}: { token?: string | null; headers?: Record<string, string> } = {},
): Promise<Posted> {
	const url = token === null ? server.url : `${server.url}?token=${encodeURIComponent(token)}`;
	const res = await fetch(url, {
		method: 'POST',
		headers: { 'Content-Type': contentType, ...headers },
		body,
	});
	return { status: res.status, body: await res.text(), headers: res.headers };
}

export async function get(server: WebhookServer, query: Record<string, string>): Promise<Posted> {
	const res = await fetch(`${server.url}?${new URLSearchParams(query).toString()}`);
	return { status: res.status, body: await res.text(), headers: res.headers };
}

interface Warner {
	warn(message: string): void;
}

/**
 * The logger node contexts use: n8n-core's own copy of @n8n/di and @n8n/backend-common (it
 * carries them in its node_modules), so they are resolved from n8n-core, not from here.
 */
function n8nCoreLogger(): Warner {
	const paths = [path.dirname(require.resolve('n8n-core'))];
	/* eslint-disable @typescript-eslint/no-require-imports */
	const { Container } = require(require.resolve('@n8n/di', { paths })) as {
		Container: { get(type: unknown): unknown };
	};
	const { Logger } = require(require.resolve('@n8n/backend-common', { paths })) as {
		Logger: unknown;
	};
	/* eslint-enable @typescript-eslint/no-require-imports */
	return Container.get(Logger) as Warner;
}

/** Every line n8n's logger would have written at warn level, for checking what is (not) logged. */
export function captureWarnings(): { lines: string[]; restore: () => void } {
	const logger = n8nCoreLogger();
	const lines: string[] = [];
	const spy = jest.spyOn(logger, 'warn').mockImplementation((message: string) => {
		lines.push(message);
	});
	return { lines, restore: () => spy.mockRestore() };
}

export const BATCH = '9007199254740993';
export const SESSION = '18014398509481985';

/** A report in get_status JSON, ids as bare numbers (lossless readers keep their digits). */
export function jsonReport(fields: Partial<Record<string, string>> = {}): string {
	const f = {
		batch_id: BATCH,
		network_id: '23410',
		status: 'DELIVRD',
		msisdn: '447700900001',
		gateway_session_id: SESSION,
		delivery_date: '2026-01-15 10:00:05.0',
		...fields,
	};
	return `{"batch_id":${f.batch_id},"network_id":${f.network_id},"status":"${f.status}","msisdn":"${f.msisdn}","gateway_session_id":${f.gateway_session_id},"delivery_date":"${f.delivery_date}"}`;
}

export function xmlReport(fields: Partial<Record<string, string>> = {}): string {
	const f = {
		msisdn: '447700900001',
		delivery_date: '260115100005',
		network_id: '23410',
		status: 'DELIVRD',
		batch_id: BATCH,
		gateway_session_id: SESSION,
		...fields,
	};
	return `<delivery_report>${Object.entries(f)
		.map(([k, v]) => `<${k}>${v}</${k}>`)
		.join('')}</delivery_report>`;
}
