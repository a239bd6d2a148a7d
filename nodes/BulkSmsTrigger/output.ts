/** The polling trigger's items: a report with its previous status, or a finished batch's summary. */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { summariseReports, type DeliveryReport } from '../shared/domain/reports';
import type { RawReport } from '../shared/domain/responses';
import { wanted, type BatchFinished, type ReportEmission } from '../shared/domain/watch';
import type { Settings } from './parameters';

export type Shape = (raw: RawReport) => DeliveryReport;

/**
 * The Get Status report with previous_status after status, written as one literal: a poll may
 * emit 100,000 items, and a literal is faster than copying keys. The type lists every field
 * of DeliveryReport, so a field added there fails to compile here until it is added.
 */
export function reportItem(emission: ReportEmission<RawReport>, shape: Shape): INodeExecutionData {
	const r = shape(emission.report);
	const json: Record<keyof DeliveryReport | 'previous_status', IDataObject[string]> = {
		batch_id: r.batch_id,
		msisdn: r.msisdn,
		status: r.status,
		previous_status: emission.previousStatus,
		outcome: r.outcome,
		final: r.final,
		network_id: r.network_id,
		gateway_session_id: r.gateway_session_id,
		delivery_date: r.delivery_date,
		delivery_date_raw: r.delivery_date_raw,
	};
	return { json };
}

/** The Get Status batch summary; lists reports only when a status filter says which. */
export function summaryItem(
	batch: BatchFinished<RawReport>,
	settings: Settings,
	shape: Shape,
): INodeExecutionData {
	const reports = batch.reports.map(shape);
	const json: IDataObject = { ...summariseReports(batch.batchId, reports) };
	if (settings.statuses.length > 0) {
		json.reports = reports.filter((report) =>
			wanted(report.status, settings),
		) as unknown as IDataObject[];
	}
	return { json };
}
