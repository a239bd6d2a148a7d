/**
 * A campaign: many batches followed together (one per contact in a personalised send). How a
 * user's list of batch ids is read, and the one summary Get Status gives of all of them.
 */
import { readBatchId } from './batchId';
import { summariseReports, type DeliveryReport } from './reports';
import type { Outcome } from './status';

export type BatchIdList = { batchIds: string[] } | { problem: string; hint: string };

/**
 * Text (commas, semicolons, spaces, new lines), one id, or an expression's list (of texts or
 * lists); each id read as exact digits in the service's form (readBatchId), duplicates once.
 * Nothing at all gives an empty list: each node says what that means for it.
 */
export function readBatchIdList(value: unknown): BatchIdList {
	const entries = (Array.isArray(value) ? value.flat(2) : [value]).flatMap((entry: unknown) =>
		typeof entry === 'string' ? entry.split(/[\s,;]+/).filter((part) => part !== '') : [entry],
	);
	const ids = new Set<string>();
	for (const entry of entries) {
		if (entry === null || entry === undefined || entry === '') continue;
		const read = readBatchId(entry);
		if ('problem' in read) return read;
		ids.add(read.batchId);
	}
	return { batchIds: [...ids] };
}

/** A number the campaign could not deliver to, and where to look it up. */
export interface FailedNumber {
	msisdn: string;
	batch_id: string;
	status: string;
}

export interface CampaignSummary {
	/** Batches asked for (each once). */
	batches: number;
	/** Reports found over all of them. */
	messages: number;
	by_status: Record<string, number>;
	by_outcome: Record<Outcome, number>;
	/**
	 * Every batch was read, has reports, and all of them are final: nothing will change any
	 * more. A batch without reports yet keeps it false (the service may not have created them).
	 */
	all_final: boolean;
	/** Batches not final yet (no reports, or some pending), to ask for again. */
	unfinished_batches: string[];
	/** Every number whose outcome is failed. */
	failed: FailedNumber[];
	/** Batches that could not be read (only under Continue On Fail), with why. */
	unread_batches?: Array<{ batch_id: string; error: string }>;
}

export interface BatchReports {
	batchId: string;
	reports: readonly DeliveryReport[];
}

export function summariseCampaign(
	batches: readonly BatchReports[],
	unread: ReadonlyArray<{ batch_id: string; error: string }> = [],
): CampaignSummary {
	const byStatus: Record<string, number> = {};
	const byOutcome: Record<Outcome, number> = { delivered: 0, failed: 0, pending: 0 };
	const failed: FailedNumber[] = [];
	const unfinished: string[] = [];
	let messages = 0;
	for (const { batchId, reports } of batches) {
		const batch = summariseReports(batchId, reports);
		addCounts(byStatus, batch.by_status);
		addCounts(byOutcome, batch.by_outcome);
		messages += batch.total;
		if (!batch.all_final) unfinished.push(batchId);
		for (const report of reports) {
			if (report.outcome === 'failed')
				failed.push({ msisdn: report.msisdn, batch_id: batchId, status: report.status });
		}
	}
	const summary: CampaignSummary = {
		batches: batches.length + unread.length,
		messages,
		by_status: byStatus,
		by_outcome: byOutcome,
		all_final: batches.length > 0 && unfinished.length === 0 && unread.length === 0,
		unfinished_batches: unfinished,
		failed,
	};
	if (unread.length > 0) summary.unread_batches = [...unread];
	return summary;
}

function addCounts<K extends string>(total: Record<K, number>, counts: Record<K, number>): void {
	for (const key of Object.keys(counts) as K[]) total[key] = (total[key] ?? 0) + counts[key];
}
