/** Reading the watched batches for one poll, each batch's failure set aside with its error. */
import type { IPollFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { WireFormat } from '../shared/domain/body';
import type { RawReport } from '../shared/domain/responses';
import type { FailureKind } from '../shared/domain/watch';
import { fetchMany, type Account, type NodeError } from '../shared/transport';

export interface Read {
	fetched: Map<string, RawReport[]>;
	failed: Map<string, FailureKind>;
	errors: Map<string, NodeError>;
}

/**
 * Reads the batches (fetchMany: a few at a time, one pace for the poll). A batch that fails is
 * set aside with its error; the others are read all the same, unless a failure concerns the
 * account and no batch was read yet: every request would fail alike.
 */
export async function fetchAll(
	this: IPollFunctions,
	batchIds: readonly string[],
	format: WireFormat,
	account: Account,
): Promise<Read> {
	const reads = new Map(batchIds.map((batchId) => [batchId, { batchId, format }]));
	const results = await fetchMany.call(
		this,
		reads,
		async () => account,
		({ accountFailed, read }) => accountFailed && read === 0,
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

function isNotFound(error: NodeError): boolean {
	return error instanceof NodeApiError && String(error.httpCode) === '404';
}
