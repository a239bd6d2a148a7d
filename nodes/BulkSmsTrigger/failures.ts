/**
 * A watched batch that cannot be read, said to the user: its own error naming it, or several
 * failing batches in one error, and always what the trigger does about it (reads it again,
 * loses nothing). A failure of the whole account is account.ts's.
 */
import type { IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { WatchState } from '../shared/domain/watchState';
import { restated, type NodeError } from '../shared/transport';

/** Failing batches named one by one in an error; more are counted. */
const NAMED_IN_ERROR = 10;

/** What the trigger does about a failing batch, for every error it throws. */
function carryOn(state: WatchState, batchId: string, watched: number): string {
	const count = state.e?.[batchId] ?? 1;
	const times = count === 1 ? 'this poll' : `${count} polls in a row`;
	const others = watched > 1 ? ' The other batches are read and emitted as usual.' : '';
	return `Batch ${batchId} could not be read in ${times}. Its memory is unchanged, so it is read again next poll and nothing of it is lost or emitted twice.${others}`;
}

/** One failing batch read in this poll: its own error (HTTP code kept), naming the batch. */
export function explainFailure(
	error: NodeError,
	batchId: string,
	state: WatchState,
	watched: number,
): Error {
	return restated(error, {
		message: namingBatch(error.message, batchId),
		description: [error.description, carryOn(state, batchId, watched)].filter(Boolean).join(' '),
	});
}

/** The message of one batch's failure, naming the batch. */
export function namingBatch(message: string, batchId: string): string {
	return message.includes(batchId) ? message : `Checking batch ${batchId} failed: ${message}`;
}

const WRONG_ID_HINT =
	'A batch the service does not know (HTTP 404) is most likely a wrong id: remove it from Batch IDs.';

/** Several failing batches, or ones that failed in the last poll: each named with its error. */
export function failingBatches(
	this: IPollFunctions,
	failing: ReadonlyArray<[string, string]>,
	state: WatchState,
	watched: number,
): NodeOperationError {
	if (failing.length === 1) {
		const [[batchId, message]] = failing;
		return new NodeOperationError(
			this.getNode(),
			`Checking batch ${batchId} keeps failing: ${message}`,
			{ description: `${carryOn(state, batchId, watched)} ${WRONG_ID_HINT}` },
		);
	}
	const named = failing
		.slice(0, NAMED_IN_ERROR)
		.map(([batchId, message]) => `${batchId}: ${message}`);
	if (failing.length > NAMED_IN_ERROR) named.push(`and ${failing.length - NAMED_IN_ERROR} more`);
	return new NodeOperationError(this.getNode(), `${failing.length} watched batches keep failing`, {
		description: `${named.join('; ')} Their memory is unchanged, so each is read again next poll and nothing of it is lost or emitted twice. The other batches are read and emitted as usual. ${WRONG_ID_HINT}`,
	});
}

// ---------------------------------------------------------------- output
