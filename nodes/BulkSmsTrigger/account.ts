/**
 * When a poll's failures concern the account, not a batch (docs/decisions.md, "An account's
 * failure"): the poll fails at once, in the credential test's words, and emits
 * nothing; the batches' memory and failure counts stay as they were, since no batch is at fault.
 * Only a failure of some batches while others are read keeps the per-batch 3, 6, 12… reporting.
 */
import type { NodeApiError } from 'n8n-workflow';

import {
	concernsAccount,
	failureKind,
	restated,
	UNREADABLE,
	type NodeError,
} from '../shared/transport';

const EVERY_BATCH =
	"This concerns every watched batch, so the trigger reads none of them and emits nothing until it is put right (the credential's Test button checks the account and the Base URL the same way). The trigger's memory is unchanged: nothing is lost or emitted twice.";

/** The credential test's own words for the account's refusals. */
const REFUSED: Record<string, string> = {
	'401': 'Wrong username or password: the service refused them (HTTP 401)',
	'403':
		'The service refused this account (HTTP 403): check the username and password, and that the account may read delivery reports',
};

/**
 * The error of a poll that read no batch, when its failures concern the account: one failure
 * that can only be the account's or the address's (concernsAccount), or every batch asked for
 * failing the same way (two or more: one batch alone may simply be a wrong id). Otherwise
 * undefined: the failures are the batches' own.
 */
export function accountFailure(
	errors: ReadonlyMap<string, NodeError>,
	batchesRead: number,
): NodeError | undefined {
	if (batchesRead > 0 || errors.size === 0) return undefined;
	const failures = [...errors.values()];
	const account = failures.find(concernsAccount);
	if (account) return said(account, accountMessage(account));
	const [first] = failures;
	const kind = failureKind(first);
	if (failures.length < 2 || !failures.every((error) => failureKind(error) === kind))
		return undefined;
	if (httpCodeOf(first) === '404') {
		return said(
			first,
			`The service knows none of the ${failures.length} batches asked for (HTTP 404)`,
			'Either the credential is for another account than the one that sent them, or Batch IDs holds wrong ids, or the Base URL points at another service.',
		);
	}
	return said(
		first,
		`All ${failures.length} batches asked for failed the same way: ${first.message}`,
	);
}

/** The message of a failure that concerns the account, as the credential test words it. */
function accountMessage(error: NodeError): string {
	const refused = REFUSED[httpCodeOf(error) ?? ''];
	if (refused) return refused;
	if (error.message.startsWith(UNREADABLE)) {
		return `The Base URL does not answer like the Bulk SMS service: ${error.message.slice(UNREADABLE.length)}`;
	}
	return error.message;
}

function httpCodeOf(error: NodeError): string | undefined {
	const code = (error as NodeApiError).httpCode;
	return typeof code === 'string' ? code : undefined;
}

/** The failure said for the whole account, in a new error that keeps its HTTP code and details. */
function said(error: NodeError, message: string, cause?: string): NodeError {
	const description = [cause ?? error.description, EVERY_BATCH].filter(Boolean).join(' ');
	return restated(error, { message, description });
}
