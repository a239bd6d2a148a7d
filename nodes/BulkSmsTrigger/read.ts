/**
 * Reading the watched batches for one poll, each batch's failure set aside with its error. One
 * poll reads a bounded number of reports and starts no read after a while, however many batches
 * are watched: the rest are read by the next polls, in turn (watch.ts, batchesToPoll).
 */
import type { IPollFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { WireFormat } from '../shared/domain/body';
import type { RawReport } from '../shared/domain/responses';
import type { FailureKind } from '../shared/domain/watch';
import { fetchMany, type Account, type NodeError, type ReadProgress } from '../shared/transport';

export interface Read {
	fetched: Map<string, RawReport[]>;
	failed: Map<string, FailureKind>;
	errors: Map<string, NodeError>;
}

export interface PollBounds {
	/**
	 * One poll holds at most this many reports (and the reads already under way when it is
	 * reached): a poll of bounded time and memory at any size of campaign (docs/benchmarks.md,
	 * "Polls of bounded size").
	 */
	reports: number;
	/**
	 * No read starts after this long, so that a poll ends well inside n8n's poll interval (a
	 * minute at the most often) and its durable scheduler's budget: about 1,000 batches at a
	 * service's usual pace, 8 reads at a time.
	 */
	readingMs: number;
}

export const POLL_BOUNDS: Readonly<PollBounds> = { reports: 100_000, readingMs: 20_000 };

let bounds: Readonly<PollBounds> = POLL_BOUNDS;

/** For tests only: other bounds until the returned function restores the previous ones. */
export function overridePollBounds(other: Partial<PollBounds>): () => void {
	const previous = bounds;
	bounds = { ...bounds, ...other };
	return () => {
		bounds = previous;
	};
}

/**
 * The destinations the trigger knows a batch to hold, or undefined for one never read: that one
 * is expected to hold as many as the batches read so far in the poll, on average.
 */
export type KnownSize = (batchId: string) => number | undefined;

/**
 * Reads the batches in this order (fetchMany: a few at a time, one pace for the poll) until the
 * poll's bounds: the first is always read. A batch that fails is set aside with its error; the
 * others are read all the same, unless a failure concerns the account and no batch was read yet:
 * every request would fail alike.
 */
export async function fetchAll(
	this: IPollFunctions,
	batchIds: readonly string[],
	format: WireFormat,
	account: Account,
	knownSize: KnownSize = () => undefined,
): Promise<Read> {
	const reads = new Map(batchIds.map((batchId) => [batchId, { batchId, format }]));
	const results = await fetchMany.call(
		this,
		reads,
		async () => account,
		readsEnough(batchIds, knownSize, readingTime.call(this)),
	);
	const read: Read = { fetched: new Map(), failed: new Map(), errors: new Map() };
	for (const [batchId, result] of results) {
		if (Array.isArray(result)) {
			read.fetched.set(batchId, result);
			continue;
		}
		read.errors.set(batchId, result);
		read.failed.set(batchId, isNotFound(result) ? 'unknown' : 'failed');
	}
	return read;
}

/**
 * When to start no more reads: the account failing, or the poll's bounds reached by the reports
 * read, those of the reads under way and of the next one (as far as they can be told before).
 */
function readsEnough(
	batchIds: readonly string[],
	knownSize: KnownSize,
	readingMs: number,
): (progress: ReadProgress) => boolean {
	const startedAt = Date.now();
	const limit = bounds.reports;
	return ({ accountFailed, read, failed, started, reports }) => {
		if (accountFailed && read === 0) return true;
		if (started === 0) return false;
		if (Date.now() - startedAt >= readingMs) return true;
		const average = read > 0 ? reports / read : 1;
		let expected = reports;
		for (let i = read + failed; i <= started && i < batchIds.length; i++)
			expected += knownSize(batchIds[i]) ?? average;
		return expected > limit;
	};
}

/** The bound's reading time, or less when n8n gives the poll less (its durable scheduler does). */
function readingTime(this: IPollFunctions): number {
	const budget = typeof this.getPollBudgetMs === 'function' ? this.getPollBudgetMs() : Infinity;
	return Math.min(bounds.readingMs, budget / 2);
}

function isNotFound(error: NodeError): boolean {
	return error instanceof NodeApiError && String(error.httpCode) === '404';
}
