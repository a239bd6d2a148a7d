/**
 * What webhook() hands to the execution it starts, for the trigger's own step (execute.ts) to take
 * off before anything is output: each report to emit as read (its date not yet in a zone), and,
 * with the first report of each callback, the keys of everything the callback carried that was
 * news, emitted or filtered out. n8n drops the static data that webhook() writes when the call
 * starts an execution (docs/decisions.md, "Status callbacks: the push path (issue 17)"), so what
 * a callback teaches the memory travels with its execution.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { RawReport } from '../shared/domain/responses';

/** A field no report has; nothing downstream ever sees it. */
const HANDOVER = '__bulkSmsCallback';

export interface Handover {
	report: RawReport;
	/** On the first report of a callback: the keys it adds to the memory. */
	keys?: string[];
	/** The process that received the callback (KnownReports.process). */
	from?: string;
}

export function handoverItems(
	reports: readonly RawReport[],
	keys: string[],
	from: string,
): INodeExecutionData[] {
	return reports.map((report, index) => {
		const handover: Handover = index === 0 ? { report, keys, from } : { report, from };
		return { json: { [HANDOVER]: handover as unknown as IDataObject } };
	});
}

/** The hand-over an item carries; undefined for an item made otherwise (pinned data, an older version). */
export function takeHandover(item: INodeExecutionData): Handover | undefined {
	const handover = item.json[HANDOVER] as Partial<Handover> | undefined;
	if (typeof handover !== 'object' || handover === null || typeof handover.report !== 'object')
		return undefined;
	return {
		report: handover.report,
		keys: Array.isArray(handover.keys) ? handover.keys.filter((k) => typeof k === 'string') : [],
		from: typeof handover.from === 'string' ? handover.from : undefined,
	};
}
