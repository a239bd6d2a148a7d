/** What Get Status works with: each item's request, rows of Send never sent, batches read. */
import type { WireFormat } from '../../../shared/domain/body';
import type { DeliveryReport } from '../../../shared/domain/reports';
import type { ReportFilter } from '../../../shared/domain/reportFilter';
import type { NodeError } from '../../../shared/transport';

/** What one input item asks for. */
export interface Request {
	itemIndex: number;
	batchIds: string[];
	filter: ReportFilter;
	format: WireFormat;
}

/**
 * A row of Send with no batch to read (skipped, failed, refused; unknown without a batch; or held
 * back by Send's record with no batch this run knows): it passes through, paired, saying so.
 */
export interface NotSent {
	itemIndex: number;
	/**
	 * `unknown` when the service may have taken the send (it gave no batch to read); `sent before`
	 * or `in doubt` when Send's record held it back (its batch id is in the earlier run's output).
	 */
	outcome: 'not sent' | 'unknown' | 'sent before' | 'in doubt';
	send_outcome: string;
	msisdn: string | null;
	reason: string | null;
}

/** A batch's reports, or why they could not be read. */
export type Read = DeliveryReport[] | NodeError;

export type Fetched = Map<string, Read>;

/** A batch is read once per format asked for. */
export const keyOf = (format: WireFormat, batchId: string) => `${format} ${batchId}`;

/** Once the run goes on past throwFirstFailure, every batch has its reports or its error. */
export function readOf(fetched: Fetched, format: WireFormat, batchId: string): Read {
	return fetched.get(keyOf(format, batchId)) as Read;
}
