/**
 * A row of Send's output with no batch to read (never sent: skipped, failed, refused, or unknown
 * without a batch; or held back by Send's record, sent before or in doubt, with no batch this run
 * knows) passes through, paired, saying so, in the chosen output's columns, instead of failing.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { NotSent } from './model';

/** A row of Send that has no batch of its own, as Send's send_outcome says. */
export function notSentRow(json: IDataObject | undefined, itemIndex: number): NotSent | undefined {
	const sendOutcome = json?.send_outcome;
	if (typeof sendOutcome !== 'string' || sendOutcome === 'accepted') return undefined;
	const text = (value: unknown) => (typeof value === 'string' ? value : null);
	const passed = ['unknown', 'sent before', 'in doubt'] as const;
	const outcome = passed.find((known) => known === sendOutcome) ?? 'not sent';
	return {
		itemIndex,
		outcome,
		send_outcome: sendOutcome,
		msisdn: text(json?.msisdn),
		reason: text(json?.reason) ?? text(json?.error),
	};
}

/** The row never sent, in the columns of the chosen output, with Send's outcome and reason. */
export function notSentItem(row: NotSent, output: string): INodeExecutionData {
	const said = { send_outcome: row.send_outcome, reason: row.reason };
	// Nothing will change for it: final, so that a loop waiting for every row does not wait on it.
	const json: IDataObject =
		output === 'batch'
			? {
					batch_id: null,
					total: 0,
					by_status: {},
					by_outcome: { delivered: 0, failed: 0, pending: 0 },
					all_final: true,
					reports: [],
					outcome: row.outcome,
					...said,
				}
			: {
					batch_id: null,
					msisdn: row.msisdn,
					status: null,
					outcome: row.outcome,
					final: true,
					network_id: null,
					gateway_session_id: null,
					delivery_date: null,
					delivery_date_raw: null,
					...said,
				};
	return { json, pairedItem: { item: row.itemIndex } };
}
