/**
 * n8n's deduplication store, the one store n8n lets a community node write during a run: in n8n's
 * own database, written at once, shared by main and every worker, kept across restarts and
 * crashes. Send's record and the Status Trigger's claims use it through this one adapter.
 *
 * What n8n gives (its `checkProcessedAndRecord` family, mode "entries"): one record per workflow
 * and node (scope 'node') or per workflow (scope 'workflow'); each value is kept as a hash, so a
 * value can be asked about but not read back; every call reads the whole record, changes it and
 * writes it back, with no lock, and the oldest values go first past `maxEntries`. So the calls of
 * one n8n process on one record run one after the other (StoreQueue), and a caller that must not lose a write
 * to another process says how it copes (Send's record: docs/decisions.md, "Send's record").
 */
import type { IExecuteFunctions } from 'n8n-workflow';

export type StoreScope = 'node' | 'workflow';

type Helpers = IExecuteFunctions['helpers'];

/**
 * One n8n process's queue per record: two executions of one node in one process never read and
 * write its record at the same time (one write would undo the other's). It lives on the node
 * type's instance, which n8n makes once per process.
 */
export class StoreQueue {
	private readonly last = new Map<string, Promise<unknown>>();

	async queued<T>(record: string, call: () => Promise<T>): Promise<T> {
		const previous = this.last.get(record) ?? Promise.resolve();
		const next = previous.catch(() => undefined).then(call);
		this.last.set(record, next);
		try {
			return await next;
		} finally {
			if (this.last.get(record) === next) this.last.delete(record);
		}
	}
}

export class DeduplicationStore {
	private readonly options: { mode: 'entries'; maxEntries: number };
	/** Names the record among those of this process, for its queue. */
	readonly name: string;

	constructor(
		context: Pick<IExecuteFunctions, 'helpers' | 'getWorkflow' | 'getNode'>,
		private readonly scope: StoreScope,
		maxEntries: number,
		private readonly queue: StoreQueue,
	) {
		this.helpers = context.helpers;
		this.options = { mode: 'entries', maxEntries };
		this.name = DeduplicationStore.nameOf(context, scope);
	}

	/** Names a record among those of this process: its workflow, scope and node. */
	static nameOf(
		context: Pick<IExecuteFunctions, 'getWorkflow' | 'getNode'>,
		scope: StoreScope,
	): string {
		const node = scope === 'node' ? context.getNode().id : '';
		return `${context.getWorkflow().id ?? ''} ${scope} ${node}`;
	}

	private readonly helpers: Helpers;

	/** Whether this n8n gives nodes the store at all (every n8n 1.x and 2.x does). */
	static offered(context: Pick<IExecuteFunctions, 'helpers'>): boolean {
		return typeof context.helpers.checkProcessedAndRecord === 'function';
	}

	/**
	 * Records the values and gives those that were there before. Once more on a failure: when two
	 * processes write a record's first values at once, the database refuses the second, and a
	 * second try finds the first.
	 */
	async record(values: readonly string[]): Promise<Set<string>> {
		if (values.length === 0) return new Set();
		const ask = async () =>
			await this.helpers.checkProcessedAndRecord([...values], this.scope, this.options);
		const { processed } = await ask().catch(ask);
		return new Set(processed.map(String));
	}

	/** Which of the values are there, without leaving the others behind. */
	async has(values: readonly string[]): Promise<Set<string>> {
		if (values.length === 0) return new Set();
		const asked = await this.helpers.checkProcessedAndRecord([...values], this.scope, this.options);
		// Asking recorded the values that were not there: they are taken out at once.
		if (asked.new.length > 0) await this.forget(asked.new.map(String));
		return new Set(asked.processed.map(String));
	}

	/** n8n searches the whole record for each value: a few values at a time, or a small record. */
	async forget(values: readonly string[]): Promise<void> {
		if (values.length === 0) return;
		await this.helpers.removeProcessed([...values], this.scope, this.options);
	}

	async forgetAll(): Promise<void> {
		await this.helpers.clearAllProcessedItems(this.scope, this.options);
	}

	async size(): Promise<number> {
		return await this.helpers.getProcessedDataCount(this.scope, this.options);
	}

	/** Calls that must not be interleaved with another execution's in this process, queued as one. */
	async queued<T>(calls: () => Promise<T>): Promise<T> {
		return await this.queue.queued(this.name, calls);
	}
}
