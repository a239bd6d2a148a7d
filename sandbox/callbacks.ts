/* eslint-disable
	@n8n/community-nodes/no-restricted-globals
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * Status callbacks: the interface says the service calls back when receive_updates is true
 * (docs/interface.md 6) and leaves everything else open, so this is the sandbox's own design (sandbox/README.md):
 * each status change of a message of an account with a callback URL is POSTed there, in the
 * get_status form of the account's format, and retried with backoff until the receiver answers
 * 2xx (at least once). Faults (duplicates, reordering, delays) are drawn per callback.
 */
import {
	blankPassword,
	CALLBACK_FAULT_KINDS,
	checkCallbackOptions,
	DEFAULT_CALLBACKS,
	splitCredentials,
	type CallbackFaultKind,
	type CallbackOptions,
	type CallbackTarget,
} from './callbackSettings';
import { stateAt } from './lifecycle';
import type { ReportStatus } from './numbers';
import { CONTENT_TYPES, renderStatus, type Fields, type Format } from './render';
import { seededRandom } from './random';
import type { Batch } from './store';

type AttemptOutcome = number | 'timeout' | string;

export interface CallbackView {
	id: number;
	account: string;
	/** The URL with its password blanked. */
	url: string;
	format: Format;
	reports: Array<{ batch_id: string; msisdn: string; gateway_session_id: string; status: string }>;
	state: 'pending' | 'acknowledged' | 'failed';
	attempts: Array<{ at: string; outcome: AttemptOutcome; duplicate?: true }>;
	faults: CallbackFaultKind[];
}

export interface CallbackTotals {
	/** Callbacks created (one per group of status changes). */
	callbacks: number;
	/** HTTP requests made, retries and duplicates included. */
	sent: number;
	retried: number;
	acknowledged: number;
	failed: number;
	pending: number;
	duplicated: number;
}

interface Delivery {
	view: CallbackView;
	target: CallbackTarget;
	body: string;
	/** Reorder fault: since when it waits to be overtaken, and whether it was. */
	heldSince?: number;
	overtaken?: boolean;
}

/** Everything the notifier needs from the sandbox, so it stays apart from HTTP and the store. */
interface CallbackHost {
	now(): number;
	finalAfterMs: number;
	reportFields(batch: Batch, index: number, format: Format): Fields;
	batch(batchId: string): Batch | undefined;
}

const VIEW_SIZE = 1000;
const MAX_RETRY_MS = 30_000;
/** How long a callback marked "reorder" waits for another one to overtake it. */
const REORDER_HOLD_MS = 1000;
const SCAN_EVERY_MS = 50;

export class Callbacks {
	private options: CallbackOptions;
	private random: () => number;
	private queuedFaults: CallbackFaultKind[] = [];
	/** Last status called back, per gateway_session_id of a watched batch. */
	private readonly notified = new Map<string, ReportStatus>();
	/** Batches with a callback target and a message whose last change was not called back yet. */
	private readonly watched = new Set<string>();
	/** One queue per URL, delivered in order, `inFlight` callbacks at a time. */
	private readonly queues = new Map<string, Delivery[]>();
	/** Callbacks under way per URL. */
	private readonly busy = new Map<string, number>();
	private readonly views: CallbackView[] = [];
	private readonly totals: CallbackTotals = {
		callbacks: 0,
		sent: 0,
		retried: 0,
		acknowledged: 0,
		failed: 0,
		pending: 0,
		duplicated: 0,
	};
	private readonly timers = new Set<NodeJS.Timeout>();
	private readonly aborts = new Set<AbortController>();
	private readonly idleWaiters: Array<() => void> = [];
	private nextId = 1;
	private stopped = false;
	private readonly scanner: NodeJS.Timeout;

	constructor(
		private readonly host: CallbackHost,
		options: Partial<CallbackOptions> = {},
	) {
		this.options = { ...DEFAULT_CALLBACKS, ...options };
		checkCallbackOptions(this.options);
		this.random = seededRandom(this.options.seed);
		this.scanner = setInterval(() => this.scan(), SCAN_EVERY_MS);
		this.scanner.unref();
	}

	settings(): CallbackOptions & { queued: CallbackFaultKind[] } {
		return { ...this.options, queued: [...this.queuedFaults] };
	}

	/** Replaces the settings (what is not given takes its default) and clears queued faults. */
	configure(options: Partial<CallbackOptions>): void {
		const next = { ...DEFAULT_CALLBACKS, ...options };
		checkCallbackOptions(next);
		this.options = next;
		this.random = seededRandom(next.seed);
		this.queuedFaults = [];
	}

	/** Faults for the next callbacks created, in order, before any drawn by share. */
	queueFaults(kinds: CallbackFaultKind[]): void {
		if (!Array.isArray(kinds) || kinds.some((k) => !CALLBACK_FAULT_KINDS.includes(k)))
			throw new Error(`faults must be a list of ${CALLBACK_FAULT_KINDS.join(', ')}`);
		this.queuedFaults.push(...kinds);
	}

	/**
	 * A batch was accepted (or restored from the state file), or a status of it was forced so it
	 * may change again: follow it from now on.
	 */
	watch(batch: Batch): void {
		if (!batch.callback) return;
		this.watched.add(batch.batchId);
		this.scan();
	}

	/** Compares every watched message with what was last called back; queues the changes. */
	scan(): void {
		if (this.stopped || this.watched.size === 0) return;
		const now = this.host.now();
		const byTarget = new Map<string, { target: CallbackTarget; changes: Change[] }>();
		for (const batchId of [...this.watched]) {
			const batch = this.host.batch(batchId);
			if (!batch?.callback) {
				this.watched.delete(batchId); // undone by a failed state write
				continue;
			}
			const { changes, allFinal } = this.changesOf(batch, now);
			if (allFinal) this.watched.delete(batch.batchId);
			if (changes.length === 0) continue;
			const key = `${batch.callback.format} ${batch.callback.url}`;
			const group = byTarget.get(key) ?? { target: batch.callback, changes: [] };
			group.changes.push(...changes);
			byTarget.set(key, group);
		}
		for (const { target, changes } of byTarget.values()) this.enqueue(target, changes);
	}

	/** The messages whose status moved since last called back, in one pass (run every 50 ms). */
	private changesOf(batch: Batch, now: number): { changes: Change[]; allFinal: boolean } {
		const changes: Change[] = [];
		let allFinal = true;
		batch.messages.forEach((message, index) => {
			const { status } = stateAt(batch, message, now, this.host.finalAfterMs);
			if (status === 'ENROUTE') allFinal = false;
			if (this.notified.get(message.gatewaySessionId) === status) return;
			this.notified.set(message.gatewaySessionId, status);
			changes.push({ batch, index });
		});
		return { changes, allFinal };
	}

	private enqueue(target: CallbackTarget, changes: Change[]): void {
		for (let i = 0; i < changes.length; i += this.options.batchSize) {
			const group = changes.slice(i, i + this.options.batchSize);
			const fields = group.map((c) => this.host.reportFields(c.batch, c.index, target.format));
			const delivery: Delivery = {
				target,
				body: renderStatus(fields, target.format),
				view: this.viewOf(target, group),
			};
			this.record(delivery.view);
			const queue = this.queues.get(target.url) ?? [];
			queue.push(delivery);
			this.queues.set(target.url, queue);
		}
		this.pump(target.url);
	}

	private viewOf(target: CallbackTarget, group: Change[]): CallbackView {
		const faults = this.drawFaults();
		return {
			id: this.nextId++,
			account: group[0].batch.account,
			url: blankPassword(target.url),
			format: target.format,
			reports: group.map(({ batch, index }) => {
				const m = batch.messages[index];
				return {
					batch_id: batch.batchId,
					msisdn: m.msisdn,
					gateway_session_id: m.gatewaySessionId,
					status: this.notified.get(m.gatewaySessionId) as string,
				};
			}),
			state: 'pending',
			attempts: [],
			faults,
		};
	}

	private drawFaults(): CallbackFaultKind[] {
		const queued = this.queuedFaults.shift();
		if (queued) return [queued];
		const drawn: CallbackFaultKind[] = [];
		if (this.random() < this.options.duplicateRate) drawn.push('duplicate');
		if (this.random() < this.options.reorderRate) drawn.push('reorder');
		if (this.random() < this.options.delayRate) drawn.push('delay');
		if (this.random() < this.options.burstRate) drawn.push('burst');
		return drawn;
	}

	private record(view: CallbackView): void {
		this.totals.callbacks += 1;
		this.totals.pending += 1;
		this.views.push(view);
		if (this.views.length > VIEW_SIZE) this.views.shift();
	}

	/** Delivers the head of a URL's queue, as long as fewer than `inFlight` are under way there. */
	private pump(url: string): void {
		if (this.stopped) return;
		const queue = this.queues.get(url);
		if (!queue?.length) return this.maybeIdle();
		while (queue.length > 0 && (this.busy.get(url) ?? 0) < this.options.inFlight) {
			const next = this.pick(queue);
			if (!next) return;
			this.busy.set(url, (this.busy.get(url) ?? 0) + 1);
			void this.deliver(next)
				.then(() => (this.options.spacingMs > 0 ? this.wait(this.options.spacingMs) : undefined))
				.finally(() => {
					const left = (this.busy.get(url) ?? 1) - 1;
					if (left > 0) this.busy.set(url, left);
					else this.busy.delete(url);
					this.pump(url);
				});
		}
	}

	/**
	 * The callback to send now, taken off the queue: the head, or the one after it when the head
	 * is to be overtaken ("reorder"). A lone reordered callback waits a little for another one.
	 */
	private pick(queue: Delivery[]): Delivery | undefined {
		const head = queue[0];
		if (!head.view.faults.includes('reorder') || head.overtaken) return queue.shift();
		if (queue.length > 1) {
			head.overtaken = true;
			return queue.splice(1, 1)[0];
		}
		head.heldSince ??= Date.now();
		const held = Date.now() - head.heldSince;
		if (held >= REORDER_HOLD_MS) return queue.shift();
		this.later(REORDER_HOLD_MS - held, () => this.pump(head.target.url));
		return undefined;
	}

	private async deliver(delivery: Delivery): Promise<void> {
		const { view } = delivery;
		if (view.faults.includes('delay')) await this.wait(this.options.delayMs);
		for (let attempt = 1; attempt <= this.options.maxAttempts && !this.stopped; attempt++) {
			if (attempt > 1) {
				this.totals.retried += 1;
				await this.wait(Math.min(MAX_RETRY_MS, this.options.retryBaseMs * 2 ** (attempt - 2)));
			}
			const burst = attempt === 1 && view.faults.includes('burst');
			if (await (burst ? this.burst(delivery) : this.attempt(delivery))) {
				view.state = 'acknowledged';
				this.totals.acknowledged += 1;
				this.totals.pending -= 1;
				if (view.faults.includes('duplicate')) await this.duplicate(delivery);
				return;
			}
		}
		if (this.stopped) return;
		view.state = 'failed';
		this.totals.failed += 1;
		this.totals.pending -= 1;
	}

	/** The same callback once more, after it was acknowledged: the receiver must not count it twice. */
	private async duplicate(delivery: Delivery): Promise<void> {
		this.totals.duplicated += 1;
		if (this.options.duplicateAfterMs > 0) await this.wait(this.options.duplicateAfterMs);
		await this.attempt(delivery, true);
	}

	/** The first try as several copies at once; true when any was answered 2xx. */
	private async burst(delivery: Delivery): Promise<boolean> {
		const copies = this.options.burstCopies;
		this.totals.duplicated += copies - 1;
		const tries = Array.from({ length: copies }, (_, i) => this.attempt(delivery, i > 0));
		return (await Promise.all(tries)).some(Boolean);
	}

	/** One POST; true when the receiver answered 2xx. */
	private async attempt(delivery: Delivery, duplicate = false): Promise<boolean> {
		const { url, authorization } = splitCredentials(delivery.target.url);
		const headers: Record<string, string> = {
			'Content-Type': CONTENT_TYPES[delivery.target.format],
		};
		if (authorization) headers.Authorization = authorization;
		const abort = new AbortController();
		this.aborts.add(abort);
		const timer = setTimeout(() => abort.abort(), this.options.timeoutMs);
		let outcome: AttemptOutcome;
		this.totals.sent += 1;
		try {
			const res = await fetch(url, {
				method: 'POST',
				headers,
				body: delivery.body,
				signal: abort.signal,
			});
			await res.arrayBuffer().catch(() => undefined);
			outcome = res.status;
		} catch (error) {
			outcome = abort.signal.aborted ? 'timeout' : describe(error);
		} finally {
			clearTimeout(timer);
			this.aborts.delete(abort);
		}
		delivery.view.attempts.push({
			at: new Date().toISOString(),
			outcome,
			...(duplicate ? { duplicate: true as const } : {}),
		});
		return typeof outcome === 'number' && outcome >= 200 && outcome < 300;
	}

	private wait(ms: number): Promise<void> {
		return new Promise((resolve) => this.later(ms, resolve));
	}

	private later(ms: number, run: () => void): void {
		const t = setTimeout(() => {
			this.timers.delete(t);
			run();
		}, ms);
		this.timers.add(t);
	}

	view(): { totals: CallbackTotals; callbacks: CallbackView[] } {
		return {
			totals: { ...this.totals },
			callbacks: this.views.map((v) => ({
				...v,
				reports: [...v.reports],
				attempts: [...v.attempts],
				faults: [...v.faults],
			})),
		};
	}

	/** Resolves once every change seen so far was called back (acknowledged or given up). */
	idle(): Promise<void> {
		this.scan();
		if (this.isIdle()) return Promise.resolve();
		return new Promise((resolve) => this.idleWaiters.push(resolve));
	}

	private isIdle(): boolean {
		return this.busy.size === 0 && [...this.queues.values()].every((q) => q.length === 0);
	}

	private maybeIdle(): void {
		if (!this.isIdle()) return;
		for (const resolve of this.idleWaiters.splice(0)) resolve();
	}

	stop(): void {
		this.stopped = true;
		clearInterval(this.scanner);
		for (const t of this.timers) clearTimeout(t);
		this.timers.clear();
		for (const a of this.aborts) a.abort();
		for (const resolve of this.idleWaiters.splice(0)) resolve();
	}
}

interface Change {
	batch: Batch;
	index: number;
}

/** A failed request in a few words (the cause's code, e.g. ECONNREFUSED), never a body. */
function describe(error: unknown): string {
	const cause = (error as { cause?: { code?: string } }).cause;
	return `error: ${cause?.code ?? (error as Error).name}`;
}
