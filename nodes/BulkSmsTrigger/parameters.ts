/** The polling trigger's parameters, read and checked once per poll. */
import type { IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { WireFormat } from '../shared/domain/body';
import { readBatchIdList } from '../shared/domain/campaign';
import type { TriggerOn } from '../shared/domain/reportFilter';
import { MAX_WATCHED_BATCHES, type WatchOptions } from '../shared/domain/watch';

export interface Settings extends WatchOptions {
	format: WireFormat;
}

export function readSettings(this: IPollFunctions): Settings {
	return {
		mode: this.getNodeParameter('emit', 'final') as TriggerOn,
		emitExisting: this.getNodeParameter('emitExisting', false) as boolean,
		statuses: this.getNodeParameter('options.statuses', []) as string[],
		format: this.getNodeParameter('options.format', 'json') as WireFormat,
	};
}

/** Batch IDs as text or an expression's list, in the service's form (readBatchIdList). */
export function watchedBatchIds(this: IPollFunctions): string[] {
	const read = readBatchIdList(this.getNodeParameter('batchIds', '') as unknown);
	if ('problem' in read) {
		throw new NodeOperationError(this.getNode(), `Cannot watch batch: ${read.problem}`, {
			description: read.hint,
		});
	}
	const count = read.batchIds.length;
	if (count === 0) {
		throw new NodeOperationError(this.getNode(), 'No batch ID to watch', {
			description: 'Enter the batch_id values that Send returned, separated by commas.',
		});
	}
	if (count > MAX_WATCHED_BATCHES) {
		throw new NodeOperationError(this.getNode(), `Too many batches to watch: ${count}`, {
			description: `One trigger watches at most ${MAX_WATCHED_BATCHES} batches. Remove finished ones, or split them over several triggers.`,
		});
	}
	return read.batchIds;
}

// ---------------------------------------------------------------- fetching
