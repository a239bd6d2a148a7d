/**
 * Parameters that several nodes offer, described once so that they read and mean the same in
 * each: the answer format, and the report filter (Trigger On and Only Statuses, whose rule is
 * domain/reportFilter.ts).
 */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import type { TriggerOn } from './domain/reportFilter';
import { STATUSES, type Status } from './domain/status';

/** The Accept format option, shared by every operation and the polling trigger. */
export const formatOption: INodeProperties = {
	displayName: 'Response Format',
	name: 'format',
	type: 'options',
	default: 'json',
	description:
		'Format to ask the service for. Answers are read by their content, so a gateway that answers the other format still works.',
	options: [
		{ name: 'JSON', value: 'json' },
		{ name: 'XML', value: 'xml' },
	],
};

/** The interface's meaning of each status, shown beside the option. */
const STATUS_MEANINGS: Record<Status, string> = {
	ENROUTE: 'On its way; not final yet',
	DELIVRD: 'Delivered to the phone',
	EXPIRED: 'Validity period ran out',
	DELETED: 'Deleted',
	UNDELIV: 'Undeliverable',
	ACCEPTD: 'Read by the network for the user',
	UNKNOWN: 'In an invalid state',
	REJECTD: 'Rejected by the network',
};

/**
 * Only Statuses, the same filter wherever it is offered (inside each node's Options); `more`
 * says what it does not change in that node, e.g. that a summary still counts every report.
 */
export function onlyStatusesOption(more = ''): INodeProperties {
	return {
		displayName: 'Only Statuses',
		name: 'statuses',
		type: 'multiOptions',
		default: [],
		description: ['Keep only reports in these statuses. Empty keeps all.', more].join(' ').trim(),
		options: STATUSES.map((status) => ({
			name: status,
			value: status,
			description: STATUS_MEANINGS[status],
		})),
	};
}

/**
 * A choice of Trigger On, worded once for both triggers. n8n lists a trigger's choices as its
 * actions in the node creator, so the action says how the trigger works (`how`): the two
 * triggers would otherwise offer the same names.
 */
export function triggerOnChoice(on: TriggerOn, how: string): INodePropertyOptions {
	return { ...TRIGGER_ON[on], value: on, action: `${TRIGGER_ON[on].action} (${how})` };
}

const TRIGGER_ON: Record<TriggerOn, { name: string; action: string; description: string }> = {
	changes: {
		name: 'Every Status Change',
		action: 'On every status change',
		description: 'One item for each new status of a message, ENROUTE included',
	},
	final: {
		name: 'Final Statuses Only',
		action: 'On final statuses',
		description: 'One item per message when it is delivered or has failed',
	},
	batchFinal: {
		name: 'Batch Finished',
		action: 'On batch finished',
		description: 'One summary item per batch once every message in it has a final status',
	},
};
