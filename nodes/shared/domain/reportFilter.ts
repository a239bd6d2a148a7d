/**
 * Which reports a node passes on: one rule for Get Status and both triggers. Trigger On's
 * "Final Statuses Only" leaves out messages still on their way; Only Statuses keeps the
 * statuses chosen. Together, a report passes when it passes both.
 */
import { isFinal } from './status';

/**
 * What a trigger starts the workflow for, as stored in its Trigger On parameter: each new
 * status of a message, final statuses only, or one summary per batch once it has finished.
 */
export type TriggerOn = 'changes' | 'final' | 'batchFinal';

export interface ReportFilter {
	/** Only final statuses: ENROUTE (and any code not known to be final) is left out. */
	finalOnly: boolean;
	/** Only these statuses; empty keeps every status. */
	statuses: readonly string[];
}

/** Get Status with nothing chosen: every report. */
export const EVERY_REPORT: ReportFilter = { finalOnly: false, statuses: [] };

export function passes(filter: ReportFilter, status: string): boolean {
	if (filter.finalOnly && !isFinal(status)) return false;
	return filter.statuses.length === 0 || filter.statuses.includes(status);
}

/** The filter of a trigger's Trigger On and Only Statuses. */
export function triggerFilter(on: TriggerOn, statuses: readonly string[]): ReportFilter {
	return { finalOnly: on === 'final', statuses };
}
