/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * A campaign followed by status callbacks through n8n's webhook path (the engine kit,
 * test/engine/webhook.ts, answering as n8n does once an execution has started): the sandbox calls
 * back every status change of a few thousand messages, several callbacks under way at once, with
 * repeats sent after their acknowledgement, callbacks overtaking others, and bursts of copies sent
 * at once; the receiving n8n process restarts (as n8n stops on SIGTERM, then a new process with
 * the same database) while callbacks keep coming; some ENROUTEs come after their message's final
 * status. The trigger watches some of the batches and some of the statuses, and remembers fewer
 * reports than the campaign calls back (Memory Size): once the campaign is over, the reports it
 * still holds (the latest 80% of its size) are called back again to a receiver just restarted,
 * and the ENROUTE of each of their messages that reached a final status, late. Then every change the sandbox made is reconciled
 * with what the workflow was started with, and with the order in which the receiver took the
 * callbacks (a relay in front of it records every request and its answer).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject } from 'n8n-workflow';

import { readCallback } from '../../nodes/BulkSmsStatusTrigger/read';
import type { RawReport } from '../../nodes/shared/domain/responses';
import { isFinal } from '../../nodes/shared/domain/status';
import { sendDirect } from '../../sandbox/client';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import type { WebhookServer } from '../engine/webhook';
import { seeded } from '../seeded';
import { SECRET, startTrigger, WEBHOOK_ID } from '../statusTrigger/helpers';

export interface CallbackCampaign {
	/** Messages sent, in `batches` batches; every status change of each is called back. */
	messages: number;
	batches: number;
	/** Restarts of the receiving process, spread over the campaign. */
	restarts: number;
	/** The trigger's Memory Size: fewer reports than the campaign calls back. */
	memorySize: number;
	seed: number;
}

export interface CallbackTally {
	/** Status changes the sandbox called back (each message's ENROUTE and final status). */
	reports: number;
	/** Requests the receiver got (repeats, bursts and retries included). */
	requests: number;
	/** The trigger's Memory Size. */
	memorySize: number;
	/** Reports called back again once the campaign was over, repeats and late ENROUTEs. */
	echoed: number;
	executions: number;
	restarts: number;
	/** Reports the workflow was started with. */
	emitted: number;
	/** Changes the workflow was started with more than once. */
	twice: number;
	/** Changes the filters let through that were never emitted. */
	missed: number;
	/** ENROUTEs emitted although the receiver had taken their message's final status before. */
	lateEmitted: number;
	/** Callbacks the sandbox gave up on: none, or the campaign proves nothing. */
	givenUp: number;
}

const FIRST_BATCH = 9007199254740993n;
/** Sandbox time from a send to its final statuses (the sandbox's default). */
const FINAL_AFTER_MS = 5000;
/** Only Statuses: ENROUTE and the failures; DELIVRD and ACCEPTD are filtered out. */
const STATUSES = ['ENROUTE', 'UNDELIV', 'REJECTD', 'EXPIRED'];

export async function runCallbackCampaign(campaign: CallbackCampaign): Promise<CallbackTally> {
	const sandbox = await startSandbox({
		timeScale: 0,
		firstBatchId: FIRST_BATCH,
		accounts: [{ username: 'demo', password: 'demo-password', credits: 10_000_000 }],
		callbacks: {
			batchSize: 3,
			inFlight: 4,
			duplicateRate: 0.1,
			reorderRate: 0.1,
			burstRate: 0.05,
			burstCopies: 5,
			delayRate: 0.05,
			delayMs: 300,
			retryBaseMs: 20,
			maxAttempts: 15,
			timeoutMs: 10_000,
			seed: campaign.seed,
		},
	});
	const relay = await startRelay();
	const receivers = new Receivers(watchedBatches(campaign), campaign.memorySize, relay);
	try {
		await receivers.start();
		await sandbox.upsertAccount({ username: 'demo', callbackUrl: relay.url });
		await sendCampaign(sandbox, campaign, () => receivers.restart());
		await sandbox.callbacksIdle();
		await receivers.idle();
		// A new process knows only what the workflow's static data holds.
		await receivers.restart();
		const echoed = await echoRemembered(sandbox, relay, campaign.memorySize);
		await receivers.idle();
		const tally = reconcile(sandbox, relay.exchanges, receivers.all, campaign.batches);
		return { ...tally, memorySize: campaign.memorySize, echoed };
	} finally {
		await receivers.stop();
		await relay.stop();
		await sandbox.stop();
	}
}

/** Every batch but the last: the last batch's reports are all filtered out. */
function watchedBatches(campaign: CallbackCampaign): string[] {
	return Array.from({ length: campaign.batches - 1 }, (_, i) => String(FIRST_BATCH + BigInt(i)));
}

/**
 * The batches go out one after the other, the clock moving on between them so that finals of
 * earlier batches are called back among the ENROUTEs of later ones; restarts fall in between.
 */
async function sendCampaign(
	sandbox: Sandbox,
	campaign: CallbackCampaign,
	restart: () => Promise<void>,
): Promise<void> {
	const random = seeded(campaign.seed);
	const perBatch = Math.ceil(campaign.messages / campaign.batches);
	const restartAfter = new Set(
		Array.from({ length: campaign.restarts }, (_, i) =>
			Math.floor(((i + 1) * campaign.batches) / (campaign.restarts + 1)),
		),
	);
	let next = 447700000000;
	for (let batch = 0; batch < campaign.batches; batch++) {
		const destinations = Array.from({ length: perBatch }, () => String(next++));
		await sendDirect(sandbox.baseUrl, destinations, { message: 'Hi' });
		// Every other batch becomes final at once: its finals queue right behind its ENROUTEs, and
		// a delayed ENROUTE comes after its final. The others finish among later batches.
		sandbox.advance(batch % 2 ? FINAL_AFTER_MS : Math.floor(random() * FINAL_AFTER_MS));
		if (restartAfter.has(batch)) await restart();
	}
	sandbox.advance(8 * 86_400_000); // every message final (those that expire too), but the 9s
}

/** The receiving n8n process, one after the other, all on one database (their static data). */
class Receivers {
	readonly all: WebhookServer[] = [];
	private readonly staticData: IDataObject = {};

	constructor(
		private readonly batchIds: string[],
		private readonly memorySize: number,
		private readonly relay: Relay,
	) {}

	async start(): Promise<void> {
		const receiver = await startTrigger({
			parameters: {
				emit: 'changes',
				batchIds: this.batchIds.join('\n'),
				options: { statuses: STATUSES, memorySize: this.memorySize },
			},
			timeZone: 'UTC',
			staticData: this.staticData,
			answer: 'started',
			startMs: 2,
		});
		this.all.push(receiver);
		this.relay.target = new URL(receiver.url).origin;
	}

	/** As n8n stops on SIGTERM and starts again: callbacks meanwhile find nothing listening. */
	async restart(): Promise<void> {
		this.relay.target = undefined;
		await this.all[this.all.length - 1].drain();
		await new Promise((resolve) => setTimeout(resolve, 200));
		await this.start();
	}

	async idle(): Promise<void> {
		await Promise.all(this.all.map((receiver) => receiver.idle()));
	}

	async stop(): Promise<void> {
		await Promise.all(this.all.map((receiver) => receiver.stop()));
	}
}

// ---------------------------------------------------------------- once it is over

/** Share of the Memory Size called back again: what the memory holds, with room to spare. */
const ECHO_SHARE = 0.8;

/**
 * The reports the memory still holds, called back again through the relay, 3 a callback and 4
 * at once: the latest changes the receiver took, 80% of the Memory Size, and the ENROUTE of each
 * of their messages that had reached a final status, whose own entry may be gone (a late one).
 * Each must be answered as a repeat or as late, and start nothing. Returns how many were echoed.
 */
async function echoRemembered(sandbox: Sandbox, relay: Relay, memorySize: number): Promise<number> {
	const latest = takenInOrder(relay.exchanges).slice(-Math.floor(memorySize * ECHO_SHARE));
	const reports = new Map<string, string>();
	for (const batch of sandbox.received().batches) {
		for (const m of batch.messages) {
			for (const status of ['ENROUTE', m.status])
				reports.set(`${m.gateway_session_id} ${status}`, reportJson(batch.batch_id, m, status));
		}
	}
	const echoes = latest.flatMap((change) => {
		const [message, status] = change.split(' ');
		return status === 'ENROUTE' ? [change] : [change, `${message} ENROUTE`];
	});
	const bodies: string[] = [];
	for (let at = 0; at < echoes.length; at += 3) {
		const json = echoes.slice(at, at + 3).map((change) => reports.get(change));
		bodies.push(`{"reports":[${json.join(',')}]}`);
	}
	let next = 0;
	const poster = async () => {
		while (next < bodies.length) {
			const body = bodies[next++];
			await fetch(relay.url, {
				method: 'POST',
				headers: { 'Content-Type': 'application/json' },
				body,
			}).then((res) => res.arrayBuffer());
		}
	};
	await Promise.all(Array.from({ length: 4 }, poster));
	return echoes.length;
}

/** Each change, in the order the receiver first took it (answered 2xx). */
function takenInOrder(exchanges: readonly Exchange[]): string[] {
	const taken = new Set<string>();
	for (const exchange of [...exchanges].sort((a, b) => a.end - b.end)) {
		if (exchange.status < 200 || exchange.status >= 300) continue;
		for (const change of exchange.changes) taken.add(change);
	}
	return [...taken];
}

/** One report as the sandbox calls it back (get_status JSON, ids as bare numbers). */
function reportJson(
	batchId: string,
	m: { msisdn: string; gateway_session_id: string; network_id: number },
	status: string,
): string {
	const date = status === 'ENROUTE' ? '' : '2026-11-20 10:00:05.0';
	return `{"batch_id":${batchId},"network_id":${m.network_id},"status":"${status}","msisdn":"${m.msisdn}","gateway_session_id":${m.gateway_session_id},"delivery_date":"${date}"}`;
}

// ---------------------------------------------------------------- the relay in front of n8n

/** One request the receiver got: the changes it carried, when, and its answer. */
interface Exchange {
	changes: string[];
	start: number;
	end: number;
	status: number;
}

interface Relay {
	url: string;
	/** Where requests go now (http://127.0.0.1:port); none while n8n restarts. */
	target?: string;
	exchanges: Exchange[];
	stop(): Promise<void>;
}

/**
 * Passes each request on to the receiver and records it; 502 while none listens, as a proxy.
 * It also turns away the first callback of ENROUTEs of every other batch (503) until the
 * receiver has taken those messages' final statuses: a provider's out-of-order delivery, so
 * that late ENROUTEs come, after finals the trigger emitted or filtered out.
 */
async function startRelay(): Promise<Relay> {
	const relay: Relay = { url: '', exchanges: [], stop: async () => undefined };
	const lateOnes = new LateEnroutes();
	const server: Server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const body = Buffer.concat(chunks).toString('utf8');
			const reports = reportsIn(body);
			const start = performance.now();
			const answer = lateOnes.holds(body, reports)
				? Promise.resolve(503)
				: pass(relay.target, req.url ?? '/', req.headers['content-type'], body);
			void answer.then((status) => {
				const changes = reports.map((r) => `${r.gateway_session_id} ${r.status}`);
				relay.exchanges.push({ changes, start, end: performance.now(), status });
				if (status >= 200 && status < 300) lateOnes.taken(reports);
				res.writeHead(status).end();
			});
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	relay.url = `http://127.0.0.1:${port}/webhook/${WEBHOOK_ID}/status?token=${SECRET}`;
	relay.stop = () => {
		server.closeAllConnections();
		return new Promise((resolve) => server.close(() => resolve()));
	};
	return relay;
}

/** The callbacks held back until their messages' finals were taken, by body (retries repeat it). */
class LateEnroutes {
	private readonly held = new Map<string, string[]>();
	private readonly batches = new Set<string>();
	private readonly finals = new Set<string>();

	holds(body: string, reports: readonly RawReport[]): boolean {
		if (!this.held.has(body) && this.firstOfItsBatch(reports)) {
			this.held.set(
				body,
				reports.map((r) => r.gateway_session_id),
			);
		}
		const messages = this.held.get(body);
		return messages !== undefined && !messages.every((m) => this.finals.has(m));
	}

	taken(reports: readonly RawReport[]): void {
		for (const r of reports) if (r.status !== 'ENROUTE') this.finals.add(r.gateway_session_id);
	}

	/** ENROUTEs only, of an odd batch not seen yet, of numbers that become final soon (not 8, 9). */
	private firstOfItsBatch(reports: readonly RawReport[]): boolean {
		const batch = reports[0]?.batch_id;
		if (!batch || this.batches.has(batch) || BigInt(batch) % 2n === 0n) return false;
		const soonFinal = (r: RawReport) => r.status === 'ENROUTE' && !/[89]$/.test(r.msisdn);
		if (!reports.every((r) => r.batch_id === batch && soonFinal(r))) return false;
		this.batches.add(batch);
		return true;
	}
}

async function pass(
	target: string | undefined,
	path: string,
	contentType: string | undefined,
	body: string,
): Promise<number> {
	if (!target) return 502;
	try {
		const res = await fetch(`${target}${path}`, {
			method: 'POST',
			headers: { 'Content-Type': contentType ?? 'application/json' },
			body,
		});
		await res.arrayBuffer();
		return res.status;
	} catch {
		return 502;
	}
}

/** The reports of a callback, read as the trigger reads them. */
function reportsIn(body: string): RawReport[] {
	const reading = readCallback({ body, query: {} });
	return 'reports' in reading ? reading.reports : [];
}

// ---------------------------------------------------------------- reconciliation

interface Change {
	key: string;
	batch: number;
	status: string;
	message: string;
}

/** Every change the sandbox called back: each message's ENROUTE, and its final status if it has one. */
function changesMade(sandbox: Sandbox): Change[] {
	return sandbox.received().batches.flatMap((batch) =>
		batch.messages.flatMap((m) => {
			const at = Number(BigInt(batch.batch_id) - FIRST_BATCH);
			const change = (status: string) => ({
				key: `${m.gateway_session_id} ${status}`,
				batch: at,
				status,
				message: m.gateway_session_id,
			});
			return isFinal(m.status) ? [change('ENROUTE'), change(m.status)] : [change('ENROUTE')];
		}),
	);
}

/** When the receiver first took each change: the first request carrying it that it answered 2xx. */
function firstTaken(exchanges: readonly Exchange[]): Map<string, Exchange> {
	const taken = new Map<string, Exchange>();
	for (const exchange of [...exchanges].sort((a, b) => a.start - b.start)) {
		if (exchange.status < 200 || exchange.status >= 300) continue;
		for (const change of exchange.changes) if (!taken.has(change)) taken.set(change, exchange);
	}
	return taken;
}

function reconcile(
	sandbox: Sandbox,
	exchanges: readonly Exchange[],
	receivers: readonly WebhookServer[],
	batches: number,
): CallbackTally {
	const made = changesMade(sandbox);
	const emitted = new Map<string, number>();
	for (const { json } of receivers.flatMap((r) => r.executions().flat())) {
		const key = `${String(json.gateway_session_id)} ${String(json.status)}`;
		emitted.set(key, (emitted.get(key) ?? 0) + 1);
	}
	const taken = firstTaken(exchanges);
	const finalOf = new Map(made.filter((c) => c.status !== 'ENROUTE').map((c) => [c.message, c]));
	const before = (a?: Exchange, b?: Exchange) => a !== undefined && (!b || a.end < b.start);
	const wanted = (c: Change) => c.batch < batches - 1 && STATUSES.includes(c.status);
	let missed = 0;
	let lateEmitted = 0;
	for (const change of made) {
		const times = emitted.get(change.key) ?? 0;
		if (change.status !== 'ENROUTE') {
			if (wanted(change) && times === 0) missed++;
			continue;
		}
		const final = finalOf.get(change.message);
		const finalFirst = final && before(taken.get(final.key), taken.get(change.key));
		const enrouteFirst = !final || before(taken.get(change.key), final && taken.get(final.key));
		if (wanted(change) && times === 0 && enrouteFirst) missed++;
		if (times > 0 && finalFirst) lateEmitted++;
	}
	const { totals } = sandbox.callbacks();
	return {
		reports: made.length,
		requests: exchanges.length,
		memorySize: 0,
		echoed: 0,
		executions: receivers.reduce((sum, r) => sum + r.executions().length, 0),
		restarts: receivers.length - 1,
		emitted: [...emitted.values()].reduce((sum, n) => sum + n, 0),
		twice: [...emitted.values()].filter((n) => n > 1).length,
		missed,
		lateEmitted,
		givenUp: totals.failed,
	};
}
