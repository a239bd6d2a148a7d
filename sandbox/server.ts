/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	@n8n/community-nodes/require-node-api-error
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * The sandbox HTTP server: the interface of docs/interface.md on 127.0.0.1.
 * `startSandbox()` is what tests import; `cli.ts` wraps it for `npm run sandbox`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { negotiate } from './accept';
import { handleAdmin } from './admin';
import { BATCH_ID, cancelSend, reportFields, send } from './api';
import type { CallbackTotals, CallbackView } from './callbacks';
import type { CallbackFaultKind, CallbackOptions } from './callbackSettings';
import {
	SandboxCore,
	type AccountChange,
	type AccountView,
	type Received,
	type RequestLogEntry,
} from './core';
import type { FaultKind, FaultOptions, QueuedFault } from './faults';
import { basicCredentials, isFormContentType, readBody, respond, respondText } from './http';
import type { ReportStatus } from './numbers';
import { defaultOptions, type SandboxOptions } from './options';
import { CONTENT_TYPES, renderError, renderSend, renderStatus, type Format } from './render';
import type { Account, Batch } from './store';

export { DEMO_ACCOUNT, defaultOptions, SANDBOX_PORT, type SandboxOptions } from './options';
export {
	TEST_NUMBER_TABLE,
	DEFAULT_NETWORKS,
	VALID_MSISDN,
	UNASSIGNED_PREFIXES,
	type TestNumberRule,
	type NetworkRule,
} from './numbers';
export { FIRST_BATCH_ID, FIRST_SESSION_ID } from './store';
export type { FaultKind, FaultOptions, QueuedFault } from './faults';
export type { AccountChange, Received, RequestLogEntry } from './core';
export type { CallbackTotals, CallbackView } from './callbacks';
export type { CallbackFaultKind, CallbackOptions } from './callbackSettings';

export interface Sandbox {
	/** e.g. http://127.0.0.1:8555: the base URL to put in the n8n credential. */
	baseUrl: string;
	port: number;
	options: SandboxOptions;
	/** Closes the listener and every open connection (keep-alive too); flushes the state file. */
	stop(): Promise<void>;
	/** Sandbox clock, ms since epoch. */
	now(): number;
	/** Moves the sandbox clock forward. */
	advance(ms: number): void;
	/** Sets the sandbox clock (ms since epoch), forward only. */
	setNow(ms: number): void;
	/** Replaces the fault configuration (what is not given is off) and clears queued faults. */
	setFaults(faults: Partial<FaultOptions>): void;
	/** Faults for the next /api requests, in order (deterministic tests); 'none' passes one. */
	queueFaults(...kinds: QueuedFault[]): void;
	/** The nth /api request after those already queued meets this fault; the ones before pass. */
	queueFaultAt(n: number, kind: QueuedFault): void;
	/** Every accepted batch and how many times each destination was accepted. */
	received(account?: string): Received;
	/** The last 1000 requests to /api, oldest first. */
	requests(): RequestLogEntry[];
	/** How many /api requests were being handled at once since the start: the most, and on average while any was. */
	inFlight(): InFlightView;
	accounts(): AccountView[];
	/** The accounts as the sandbox holds them, passwords included (after the state file). */
	credentials(): Account[];
	/** Adds or changes an account; `callbackUrl` (null removes it) turns status callbacks on. */
	upsertAccount(account: AccountChange): Promise<void>;
	forceStatus(gatewaySessionId: string, status: ReportStatus): Promise<void>;
	/** The callbacks made (the last 1000) and totals: sent, retried, acknowledged, failed. */
	callbacks(): { totals: CallbackTotals; callbacks: CallbackView[] };
	/** Resolves once every status change so far was called back (acknowledged or given up). */
	callbacksIdle(): Promise<void>;
	/** Replaces the callback settings (what is not given takes its default); clears queued faults. */
	setCallbacks(options: Partial<CallbackOptions>): void;
	/** Faults for the next callbacks, in order: 'duplicate', 'reorder', 'delay'. */
	queueCallbackFaults(...kinds: CallbackFaultKind[]): void;
}

const REALM = 'Basic realm="bulk-sms-sandbox", charset="UTF-8"';
const MISLABEL = 'text/plain; charset=utf-8';

class Connection {
	/**
	 * `format` is what bodies are written in; when the client accepts neither JSON nor XML
	 * (`acceptable` false) every answer, 401 included, is plain text, the one format left.
	 */
	constructor(
		readonly req: IncomingMessage,
		readonly res: ServerResponse,
		readonly url: URL,
		readonly format: Format,
		readonly acceptable: boolean,
		readonly entry: RequestLogEntry,
		private readonly mislabel: boolean,
	) {}

	answer(status: number, body: string, headers: Record<string, string> = {}): void {
		this.entry.outcome = status;
		const type = this.mislabel ? MISLABEL : CONTENT_TYPES[this.format];
		respond(this.res, status, body, type, headers);
	}

	fail(status: number, message: string, headers: Record<string, string> = {}): void {
		if (this.acceptable) return this.answer(status, renderError(message, this.format), headers);
		this.entry.outcome = status;
		respondText(this.res, status, message, headers);
	}

	drop(how: 'dropped-before' | 'dropped-after'): void {
		this.entry.outcome = how;
		this.req.socket.destroy();
	}
}

export interface InFlightView {
	max: number;
	/** Averaged over the time at least one request was in flight. */
	mean: number;
}

/** Counts the requests being handled at once (a client's concurrency, as the service sees it). */
class InFlight {
	private now = 0;
	private max = 0;
	private since = 0;
	private busyMs = 0;
	private weighted = 0;

	change(by: 1 | -1): void {
		const at = performance.now();
		if (this.now > 0) {
			this.busyMs += at - this.since;
			this.weighted += this.now * (at - this.since);
		}
		this.since = at;
		this.now += by;
		this.max = Math.max(this.max, this.now);
	}

	view(): InFlightView {
		return { max: this.max, mean: this.busyMs > 0 ? this.weighted / this.busyMs : 0 };
	}
}

class SandboxServer {
	readonly inFlight = new InFlight();
	private readonly server: Server;
	private readonly sockets = new Set<Socket>();
	private readonly timers = new Set<NodeJS.Timeout>();

	constructor(readonly core: SandboxCore) {
		this.server = createServer((req, res) => {
			this.handle(req, res).catch((error) => this.crashed(res, error));
		});
		this.server.on('connection', (socket) => {
			this.sockets.add(socket);
			socket.on('close', () => this.sockets.delete(socket));
		});
	}

	async listen(host: string, port: number): Promise<number> {
		await new Promise<void>((resolve, reject) => {
			this.server.once('error', reject);
			this.server.listen(port, host, () => resolve());
		});
		return (this.server.address() as AddressInfo).port;
	}

	async stop(): Promise<void> {
		for (const t of this.timers) clearTimeout(t);
		this.timers.clear();
		const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
		for (const socket of this.sockets) socket.destroy();
		this.core.callbacks.stop();
		await closed;
		await this.core.persist();
	}

	private crashed(res: ServerResponse, error: unknown): void {
		if (res.headersSent) return void res.destroy();
		respondText(res, 500, `sandbox error: ${(error as Error).message}`);
	}

	private sleep(ms: number): Promise<void> {
		return new Promise((resolve) => {
			const t = setTimeout(() => {
				this.timers.delete(t);
				resolve();
			}, ms);
			this.timers.add(t);
		});
	}

	private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const url = new URL(req.url ?? '/', 'http://sandbox');
		if (url.pathname.startsWith('/_sandbox/') && this.core.options.admin) {
			return handleAdmin(this.core, req, res, url);
		}
		if (!url.pathname.startsWith('/api/'))
			return respondText(res, 404, `no such path: ${url.pathname}`);
		return this.handleApi(req, res, url);
	}

	private logEntry(req: IncomingMessage, url: URL): RequestLogEntry {
		return this.core.record({
			at: new Date().toISOString(),
			method: req.method ?? '',
			path: url.pathname,
			query: url.search,
			account: basicCredentials(req.headers.authorization)?.username,
			accept: req.headers.accept,
			contentType: req.headers['content-type'],
			outcome: 'pending',
		});
	}

	private async handleApi(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
		this.inFlight.change(1);
		try {
			await this.handleApiRequest(req, res, url);
		} finally {
			this.inFlight.change(-1);
		}
	}

	private async handleApiRequest(req: IncomingMessage, res: ServerResponse, url: URL) {
		const entry = this.logEntry(req, url);
		const body = await readBody(req);
		// Logged before any fault, so a test sees what was sent even when the sandbox dropped it.
		if (body !== undefined && isFormContentType(req.headers['content-type'])) {
			entry.form = Object.fromEntries(new URLSearchParams(body));
		}
		const conn = this.connection(req, res, url, entry);
		if (this.core.faults.latencyMs > 0) await this.sleep(this.core.faults.latencyMs);
		const fault = this.core.faults.draw();
		if (fault) entry.fault = fault;
		// Injected faults stand for the infrastructure in front of the service: they come first.
		if (!this.injectBefore(conn, fault)) await this.serve(conn, body, fault === 'dropAfter');
		this.finish(conn);
	}

	private connection(
		req: IncomingMessage,
		res: ServerResponse,
		url: URL,
		entry: RequestLogEntry,
	): Connection {
		const { faults } = this.core;
		const format = faults.answerFormat ?? negotiate(req.headers.accept);
		const acceptable = format !== undefined;
		return new Connection(req, res, url, format ?? 'json', acceptable, entry, faults.mislabel);
	}

	/**
	 * The service's own checks. Credentials come first, so a caller without them learns nothing
	 * else, and cannot spend an account's rate limit.
	 */
	private async serve(conn: Connection, body: string | undefined, dropAfter: boolean) {
		const account = this.authenticate(conn);
		if (!account || this.overLimit(conn, account)) return;
		if (body === undefined) return conn.fail(413, 'request body over 1 MB');
		if (!conn.acceptable) {
			const text = 'the sandbox answers application/json or application/xml; see the Accept header';
			return conn.fail(406, text);
		}
		await this.route(conn, account, body, dropAfter);
	}

	/** The rate limit, counted per authenticated account. */
	private overLimit(conn: Connection, account: Account): boolean {
		const retryAfter = this.core.faults.overLimit(account.username, Date.now());
		if (retryAfter === undefined) return false;
		conn.entry.fault = 'rateLimit';
		const headers = { 'Retry-After': String(retryAfter) };
		conn.fail(429, `rate limit exceeded; retry after ${retryAfter} s`, headers);
		return true;
	}

	/** Faults that stop a request before it is processed; true when one did. */
	private injectBefore(conn: Connection, fault: FaultKind | undefined): boolean {
		if (fault === 'dropBefore') conn.drop('dropped-before');
		else if (fault === 'error500') conn.fail(500, 'injected fault: internal server error');
		else if (fault === 'error429' || fault === 'error503') {
			const after = String(this.core.faults.retryAfterSeconds);
			const [status, what] =
				fault === 'error429' ? [429, 'too many requests'] : [503, 'service unavailable'];
			conn.fail(status, `injected fault: ${what}; retry after ${after} s`, {
				'Retry-After': after,
			});
		} else return false;
		return true;
	}

	private finish(conn: Connection): void {
		const { entry } = conn;
		this.core.options.log?.(
			`${entry.method} ${entry.path}${entry.query} ${entry.account ?? '-'} -> ${entry.outcome}`,
		);
	}

	private authenticate(conn: Connection): Account | undefined {
		const header = conn.req.headers.authorization;
		const given = basicCredentials(header);
		const account = given && this.core.store.accounts.get(given.username);
		if (account && given && account.password === given.password) return account;
		const why = given
			? 'wrong username or password'
			: header
				? 'the Authorization header does not hold HTTP Basic credentials'
				: 'HTTP Basic credentials are required';
		conn.fail(401, why, { 'WWW-Authenticate': REALM });
		return undefined;
	}

	private async route(
		conn: Connection,
		account: Account,
		body: string,
		dropAfter: boolean,
	): Promise<void> {
		const routes: Record<string, { method: string; run: (a: Account) => Promise<string> }> = {
			'/api/sms/send': { method: 'POST', run: (a) => this.send(conn, a, body) },
			'/api/sms/get_status': { method: 'GET', run: (a) => this.status(conn, a) },
		};
		const route = routes[conn.url.pathname];
		if (!route) return conn.fail(404, `no such path: ${conn.url.pathname}`);
		if (conn.req.method !== route.method) {
			return conn.fail(405, `${conn.url.pathname} takes ${route.method}`, { Allow: route.method });
		}
		const answer = await route.run(account);
		if (!answer) return; // already answered with an error
		if (dropAfter) return conn.drop('dropped-after');
		conn.answer(200, answer);
	}

	/** Returns the body to answer, or '' when an error was already answered. */
	private async send(conn: Connection, account: Account, body: string): Promise<string> {
		if (!isFormContentType(conn.req.headers['content-type'])) {
			conn.fail(415, 'send takes a form body: Content-Type application/x-www-form-urlencoded');
			return '';
		}
		const form = new URLSearchParams(body);
		const outcome = send(account, form, this.core.context());
		if (outcome.batch && !(await this.kept(conn, outcome.batch))) return '';
		if (outcome.batch) this.core.callbacks.watch(outcome.batch);
		return renderSend(outcome.fields, conn.format);
	}

	/**
	 * The answer waits for the state file, so an accepted batch survives a crash after it. When
	 * the file cannot be written the send is undone, so the 500 means that nothing was taken.
	 */
	private async kept(conn: Connection, batch: Batch): Promise<boolean> {
		try {
			await this.core.persist();
			return true;
		} catch (error) {
			cancelSend(batch, this.core.store);
			const why = (error as Error).message;
			conn.fail(500, `the state file could not be written, so the batch was not taken: ${why}`);
			return false;
		}
	}

	private async status(conn: Connection, account: Account): Promise<string> {
		const raw = conn.url.searchParams.get('batch_id');
		if (raw === null || raw === '') {
			conn.fail(400, 'batch_id is required');
			return '';
		}
		if (!BATCH_ID.test(raw)) {
			conn.fail(400, `batch_id must be an integer of 1 to 19 digits; got "${raw}"`);
			return '';
		}
		const id = BigInt(raw).toString();
		const batch = this.core.store.batchOf(account.username, id);
		if (!batch) {
			conn.fail(404, `no batch ${id} for this account`);
			return '';
		}
		const ctx = this.core.context();
		const reports = batch.messages.map((m) => reportFields(batch, m, conn.format, ctx));
		return renderStatus(reports, conn.format);
	}
}

export async function startSandbox(options: Partial<SandboxOptions> = {}): Promise<Sandbox> {
	const full: SandboxOptions = { ...defaultOptions(), ...options };
	const core = await SandboxCore.create(full);
	const server = new SandboxServer(core);
	let port: number;
	try {
		port = await server.listen(full.host, full.port);
	} catch (error) {
		await server.stop(); // a port in use: the notifier's scanner must not run on
		throw error;
	}
	const host = full.host.includes(':') ? `[${full.host}]` : full.host;
	return {
		baseUrl: `http://${host}:${port}`,
		port,
		options: full,
		stop: () => server.stop(),
		now: () => core.clock.now(),
		advance: (ms) => core.advance(ms),
		setNow: (ms) => core.setNow(ms),
		setFaults: (faults) => core.setFaults(faults),
		queueFaults: (...kinds) => core.faults.queue(kinds),
		queueFaultAt: (n, kind) => core.faults.queueAt(n, kind),
		received: (account) => core.received(account),
		requests: () => core.requests(),
		inFlight: () => server.inFlight.view(),
		accounts: () => core.accounts(),
		credentials: () => [...core.store.accounts.values()].map((a) => ({ ...a })),
		upsertAccount: (account) => core.upsertAccount(account),
		forceStatus: (id, status) => core.forceStatus(id, status),
		callbacks: () => core.callbacks.view(),
		callbacksIdle: () => core.callbacks.idle(),
		setCallbacks: (options) => core.callbacks.configure(options),
		queueCallbackFaults: (...kinds) => core.callbacks.queueFaults(kinds),
	};
}
