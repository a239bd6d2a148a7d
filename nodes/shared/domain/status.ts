export type Outcome = 'delivered' | 'failed' | 'pending';

/** The service's status codes, in the order the interface lists them (for option lists). */
export const STATUSES = [
	'ENROUTE',
	'DELIVRD',
	'EXPIRED',
	'DELETED',
	'UNDELIV',
	'ACCEPTD',
	'UNKNOWN',
	'REJECTD',
] as const;

export type Status = (typeof STATUSES)[number];

const OUTCOMES: Readonly<Record<Status, Outcome>> = {
	ENROUTE: 'pending',
	DELIVRD: 'delivered',
	// ACCEPTD: the network read it on the user's behalf; for the sender it arrived.
	ACCEPTD: 'delivered',
	EXPIRED: 'failed',
	DELETED: 'failed',
	UNDELIV: 'failed',
	REJECTD: 'failed',
	// UNKNOWN is a documented final state ("invalid state"), not "we don't know yet".
	UNKNOWN: 'failed',
};

export function isStatus(status: string): status is Status {
	return Object.prototype.hasOwnProperty.call(OUTCOMES, status);
}

/**
 * A code the interface does not list is treated as pending, i.e. not final: calling it final
 * would make a watcher stop following a message that may still change, while treating it as
 * pending only costs another look. The raw code is always kept beside the outcome.
 */
export function outcomeOf(status: string): Outcome {
	// Called for every report of an answer (up to 10^5): a code as the service writes it is
	// found without normalising it first.
	const exact = EXACT_OUTCOMES.get(status);
	if (exact !== undefined) return exact;
	const code = status.trim().toUpperCase();
	return isStatus(code) ? OUTCOMES[code] : 'pending';
}

const EXACT_OUTCOMES: ReadonlyMap<string, Outcome> = new Map(Object.entries(OUTCOMES));

export function isFinal(status: string): boolean {
	return isFinalOutcome(outcomeOf(status));
}

/** isFinal on an outcome already read, for callers that have one (shapeReport). */
export function isFinalOutcome(outcome: Outcome): boolean {
	return outcome !== 'pending';
}
