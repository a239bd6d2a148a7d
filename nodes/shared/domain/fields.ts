/** The names of the interface's fields, where code must list them. */

/**
 * The fields of a delivery report (docs/interface.md, 2.3), in the order the service writes them (any order
 * is read); also what tells a status callback's query or form from anything else.
 */
export const REPORT_FIELDS = [
	'msisdn',
	'delivery_date',
	'network_id',
	'status',
	'batch_id',
	'gateway_session_id',
] as const;

/** The fields of a send answer (docs/interface.md, 2.2), in the order the service writes them. */
export const SEND_FIELDS = [
	'accepted',
	'batch_id',
	'batch_size',
	'receive_updates',
	'remaining_credits',
	'error',
] as const;
