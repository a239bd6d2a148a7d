/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	@n8n/community-nodes/require-node-api-error
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * What the trigger tests share: a sandbox on a frozen clock (batches go in with sendDirect from
 * sandbox/client.ts), polling the real node through n8n-core's PollContext (test/engine/poll.ts),
 * and a small proxy in front of the sandbox that can break chosen requests and counts requests
 * in flight.
 */
import {
	createServer,
	request,
	type IncomingMessage,
	type Server,
	type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { IDataObject, INode, INodeParameters } from 'n8n-workflow';

import { BULK_SMS_TRIGGER, pollOnce, type PollOutcome } from '../engine/harness';
import { DEFAULT_VALIDITY_MS, networkFor } from '../../sandbox/numbers';
import {
	DEFAULT_NETWORKS,
	FIRST_BATCH_ID,
	FIRST_SESSION_ID,
	startSandbox,
	type Sandbox,
} from '../../sandbox/server';
import type { Message, StoreSnapshot } from '../../sandbox/store';

/** A fixed start for the sandbox clock; timeScale 0 freezes it, so only advance() moves it. */
export const T0 = Date.parse('2026-11-20T10:00:00Z');
/** Sandbox time from send to the final state of test numbers that finish. */
export const FINAL_AFTER_MS = 5000;

export async function frozenSandbox(): Promise<Sandbox> {
	const sb = await startSandbox({ timeScale: 0, startTime: T0, finalAfterMs: FINAL_AFTER_MS });
	await sb.upsertAccount({ username: 'demo', credits: 1_000_000 });
	return sb;
}

/**
 * A frozen sandbox that already holds one batch of the demo account, sent at T0 to these
 * destinations. Its send endpoint takes at most 1 MB, less than 100,000 twelve-digit numbers
 * need, so the batch comes in through the sandbox's state file, as one sent before a restart.
 */
export async function sandboxWithBatch(
	destinations: readonly string[],
): Promise<{ sandbox: Sandbox; batchId: string; stop: () => Promise<void> }> {
	const { sandbox, batchIds, stop } = await sandboxWithBatches([destinations]);
	return { sandbox, batchId: batchIds[0], stop };
}

/**
 * A frozen sandbox holding these batches of the demo account (the destinations of each), all
 * sent at T0, brought in through its state file: a campaign of millions of reports is there at
 * once, without sending it.
 */
export async function sandboxWithBatches(
	batches: ReadonlyArray<readonly string[]>,
): Promise<{ sandbox: Sandbox; batchIds: string[]; stop: () => Promise<void> }> {
	const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bulk-sms-trigger-'));
	const stateFile = path.join(dir, 'state.json');
	let sessions = 0;
	const batchIds = batches.map((_, i) => (FIRST_BATCH_ID + BigInt(i)).toString());
	const snapshot: StoreSnapshot = {
		version: 1,
		clockMs: T0,
		nextBatchId: (FIRST_BATCH_ID + BigInt(batches.length) + 1n).toString(),
		nextSessionId: '0',
		accounts: [{ username: 'demo', password: 'demo-password', credits: 1_000_000 }],
		batches: batches.map((destinations, b) => {
			const messages = destinations.map((msisdn): Message => {
				const network = networkFor(msisdn, DEFAULT_NETWORKS);
				return {
					msisdn,
					gatewaySessionId: (FIRST_SESSION_ID + 2n * BigInt(sessions++)).toString(),
					networkId: network.networkId,
					validUntil: T0 + Math.min(DEFAULT_VALIDITY_MS, network.maxValidityMs),
				};
			});
			return {
				batchId: batchIds[b],
				account: 'demo',
				message: 'Hello',
				encoding: 'GSM-7',
				parts: 1,
				creditsCharged: messages.length,
				submittedAt: T0,
				messages,
			};
		}),
	};
	snapshot.nextSessionId = (FIRST_SESSION_ID + 2n * BigInt(sessions)).toString();
	const removeDir = () => fs.rm(dir, { recursive: true, force: true });
	try {
		await fs.writeFile(stateFile, JSON.stringify(snapshot));
		const sandbox = await startSandbox({
			timeScale: 0,
			startTime: T0,
			finalAfterMs: FINAL_AFTER_MS,
			stateFile,
		});
		const stop = async () => {
			await sandbox.stop();
			await removeDir();
		};
		return { sandbox, batchIds, stop };
	} catch (error) {
		await removeDir(); // nobody gets a stop() to call
		throw error;
	}
}

/** Test numbers by outcome (sandbox/numbers.ts: the last digit decides). */
export const NUMBER = {
	delivered: (n: number) => `4477009${String(n).padStart(4, '0')}0`,
	accepted: (n: number) => `4477009${String(n).padStart(4, '0')}5`,
	undeliverable: (n: number) => `4477009${String(n).padStart(4, '0')}6`,
	rejected: (n: number) => `4477009${String(n).padStart(4, '0')}7`,
	neverFinal: (n: number) => `4477009${String(n).padStart(4, '0')}9`,
};

export interface TriggerParameters {
	batchIds: string;
	emit?: 'changes' | 'final' | 'batchFinal';
	emitExisting?: boolean;
	statuses?: string[];
	format?: 'json' | 'xml';
}

/** The Bulk SMS Trigger node with these parameters (the others at their defaults). */
export function triggerNode(p: TriggerParameters): INode {
	const options: INodeParameters = {};
	if (p.statuses) options.statuses = p.statuses;
	if (p.format) options.format = p.format;
	const parameters: INodeParameters = {
		batchIds: p.batchIds,
		emit: p.emit ?? 'final',
		emitExisting: p.emitExisting ?? false,
		options,
	};
	return {
		id: 'trigger',
		name: 'Bulk SMS Trigger',
		type: BULK_SMS_TRIGGER,
		typeVersion: 1,
		position: [0, 0],
		parameters,
	};
}

/**
 * An active workflow's trigger: the same in-memory and saved static data across polls, as the
 * product keeps them. `poll()` runs one poll in 'trigger' mode, `fetchTestEvent()` in 'manual'.
 */
export class Watcher {
	readonly staticData: IDataObject = {};
	readonly persisted: IDataObject = {};
	private activated = false;
	/**
	 * n8n with N8N_POLLER_DURABLE_CURSORS_ENABLED: the static data of every poll that did not
	 * throw is committed, with the execution it starts or on its own when it emits nothing.
	 */
	durableCursors = false;

	constructor(
		private baseUrl: string,
		public parameters: TriggerParameters,
	) {}

	private spec(mode: 'trigger' | 'manual', activation = false) {
		return {
			activation,
			node: triggerNode(this.parameters),
			credentials: {
				bulkSmsApi: {
					baseUrl: this.baseUrl,
					username: 'demo',
					password: 'demo-password',
					timeZone: 'UTC',
				},
			},
			staticData: this.staticData,
			persisted: this.persisted,
			mode,
		};
	}

	/**
	 * The first poll is the one n8n runs on activation, after which it saves the static data. A
	 * failed activation throws (n8n refuses to activate), so the next poll is an activation again.
	 */
	async poll(): Promise<PollOutcome> {
		const outcome = await pollOnce(this.spec('trigger', !this.activated));
		this.activated = true;
		if (this.durableCursors && !outcome.error) {
			for (const key of Object.keys(this.persisted)) delete this.persisted[key];
			Object.assign(this.persisted, JSON.parse(JSON.stringify(this.staticData)) as IDataObject);
		}
		return outcome;
	}

	/** The emitted items' json, or [] for a poll that emitted nothing; a failed poll throws. */
	async emitted(): Promise<IDataObject[]> {
		const outcome = await this.poll();
		if (outcome.error) throw outcome.error;
		return outcome.result?.[0].map((item) => item.json) ?? [];
	}

	/**
	 * n8n restarted: what was only in memory is gone; the saved static data is loaded again.
	 * With `reactivate`, the next poll is the activation poll n8n runs as it starts (saved after).
	 */
	restart({ reactivate = false } = {}): void {
		for (const key of Object.keys(this.staticData)) delete this.staticData[key];
		Object.assign(this.staticData, JSON.parse(JSON.stringify(this.persisted)) as IDataObject);
		if (reactivate) this.activated = false;
	}

	async fetchTestEvent(): Promise<PollOutcome> {
		return await pollOnce(this.spec('manual'));
	}

	/** The trigger's own state inside the node's static data. */
	get state(): IDataObject | undefined {
		return (this.staticData['node:Bulk SMS Trigger'] as IDataObject | undefined)?.watch as
			| IDataObject
			| undefined;
	}
}

/** "msisdn previous>status" for report items, to compare emissions at a glance. */
export function changes(items: IDataObject[]): string[] {
	return items
		.map(
			(item) =>
				`${String(item.msisdn)} ${String(item.previous_status ?? '-')}>${String(item.status)}`,
		)
		.sort();
}

// ---------------------------------------------------------------- proxy

export type Breakage = { status: number; body: string } | 'drop' | undefined;

/**
 * Forwards to the sandbox; `breakFor(url)` may answer instead (an HTTP error, a bad body) or
 * drop the connection. Counts get_status requests in flight, to check the trigger's concurrency.
 */
export class Proxy {
	breakFor: (url: string) => Breakage = () => undefined;
	/** Rewrites the body of a successful get_status answer (leave reports out, reorder them). */
	rewrite?: (url: string, body: string) => string;
	inFlight = 0;
	maxInFlight = 0;
	readonly statusRequests: string[] = [];
	private server?: Server;
	baseUrl = '';

	constructor(private readonly target: string) {}

	async start(): Promise<this> {
		this.server = createServer((req, res) => this.handle(req, res));
		await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
		this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
		return this;
	}

	async stop(): Promise<void> {
		if (!this.server?.listening) return;
		this.server.closeAllConnections();
		await new Promise<void>((resolve) => this.server!.close(() => resolve()));
	}

	/** batch_id of each get_status request seen, in order. */
	batchesRequested(): string[] {
		return this.statusRequests.map(
			(url) => new URL(url, 'http://x').searchParams.get('batch_id') ?? '',
		);
	}

	private handle(req: IncomingMessage, res: ServerResponse): void {
		const url = req.url ?? '/';
		const isStatus = url.startsWith('/api/sms/get_status');
		if (isStatus) {
			this.statusRequests.push(url);
			this.inFlight++;
			this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
			res.on('close', () => this.inFlight--);
		}
		const breakage = this.breakFor(url);
		if (breakage === 'drop') return void req.socket.destroy();
		if (breakage) {
			res.writeHead(breakage.status, { 'Content-Type': 'application/json' });
			return void res.end(breakage.body);
		}
		this.forward(req, res, url);
	}

	private forward(req: IncomingMessage, res: ServerResponse, url: string): void {
		const upstream = request(
			`${this.target}${url}`,
			{ method: req.method, headers: req.headers },
			(answer) => {
				// Hold every status answer briefly so that concurrent requests overlap measurably.
				const delay = url.startsWith('/api/sms/get_status') ? 30 : 0;
				const chunks: Buffer[] = [];
				answer.on('data', (chunk: Buffer) => chunks.push(chunk));
				answer.on('end', () =>
					setTimeout(() => {
						let body = Buffer.concat(chunks);
						const headers = { ...answer.headers };
						if (this.rewrite && delay > 0 && answer.statusCode === 200) {
							body = Buffer.from(this.rewrite(url, body.toString('utf8')));
							headers['content-length'] = String(body.length);
						}
						res.writeHead(answer.statusCode ?? 502, headers);
						res.end(body);
					}, delay),
				);
			},
		);
		upstream.on('error', () => res.destroy());
		req.pipe(upstream);
	}
}
