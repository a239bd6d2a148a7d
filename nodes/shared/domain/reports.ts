import { wallToIso } from './dates';
import type { RawReport } from './responses';
import { isFinalOutcome, outcomeOf, type Outcome } from './status';

/** One delivery report as the nodes output it: the service's fields, plus what they mean. */
export interface DeliveryReport {
	batch_id: string;
	msisdn: string;
	status: string;
	outcome: Outcome;
	final: boolean;
	network_id: number;
	gateway_session_id: string;
	/** ISO 8601 with offset, or null while the message is not finalised. */
	delivery_date: string | null;
	/** As the service wrote it, for users who need to compare with its own logs. */
	delivery_date_raw: string;
}

export interface ReportSummary {
	batch_id: string;
	total: number;
	by_status: Record<string, number>;
	by_outcome: Record<Outcome, number>;
	all_final: boolean;
}

/** Called once per report of an answer (up to 10^5): the status is read once, the date is arithmetic. */
export function shapeReport(raw: RawReport, timeZone: string): DeliveryReport {
	const outcome = outcomeOf(raw.status);
	return {
		batch_id: raw.batch_id,
		msisdn: raw.msisdn,
		status: raw.status,
		outcome,
		final: isFinalOutcome(outcome),
		network_id: raw.network_id,
		gateway_session_id: raw.gateway_session_id,
		delivery_date: raw.delivery_wall === null ? null : wallToIso(raw.delivery_wall, timeZone),
		delivery_date_raw: raw.delivery_date,
	};
}

/**
 * all_final is false for a batch without reports: the service may not have created them yet,
 * and a watcher that stopped there would never see them.
 */
export function summariseReports(
	batchId: string,
	reports: readonly DeliveryReport[],
): ReportSummary {
	const byStatus: Record<string, number> = {};
	const byOutcome: Record<Outcome, number> = { delivered: 0, failed: 0, pending: 0 };
	for (const report of reports) {
		byStatus[report.status] = (byStatus[report.status] ?? 0) + 1;
		byOutcome[report.outcome]++;
	}
	return {
		batch_id: batchId,
		total: reports.length,
		by_status: byStatus,
		by_outcome: byOutcome,
		all_final: reports.length > 0 && reports.every((report) => report.final),
	};
}
