import type { INodeProperties, NodeHint } from 'n8n-workflow';

import { formatOption, onlyStatusesOption, triggerOnChoice } from '../shared/descriptions';
import { POLL_BOUNDS } from './read';

const count = (n: number) => n.toLocaleString('en-US');

/** More batches than one poll can read at a service's usual pace (see read.ts). */
export const BATCHES_PER_POLL = 1000;

const TURNS = `One poll reads at most ${count(POLL_BOUNDS.reports)} reports and starts no read after ${POLL_BOUNDS.readingMs / 1000} seconds (about ${count(BATCHES_PER_POLL)} batches): a longer list is read in turns, over several polls, so a change may show only some polls later.`;

export const triggerProperties: INodeProperties[] = [
	{
		// n8n disables "Fetch Test Event" without saying why while a required field is empty.
		displayName:
			'Paste the batch_id of a Send first (run a Bulk SMS Send, copy batch_id from its output): "Fetch Test Event" is available once Batch IDs has one.',
		name: 'batchIdsNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { batchIds: [''] } },
	},
	{
		displayName: 'Batch IDs',
		name: 'batchIds',
		type: 'string',
		typeOptions: { rows: 2 },
		default: '',
		required: true,
		placeholder: 'e.g. 9007199254740993, 9007199254740995',
		description: `The batch_id values Send returned, separated by commas, spaces or new lines, or an expression that returns a list (up to 10,000). Pass them as text: IDs have up to 19 digits. ${TURNS}`,
	},
	{
		displayName: 'Trigger On',
		name: 'emit',
		type: 'options',
		noDataExpression: true,
		default: 'final',
		options: [
			triggerOnChoice('changes', 'polls batches'),
			triggerOnChoice('final', 'polls batches'),
			triggerOnChoice('batchFinal', 'polls batches'),
		],
	},
	{
		displayName: 'Include Statuses Found at Start',
		name: 'emitExisting',
		type: 'boolean',
		default: false,
		description:
			"Whether the trigger's first poll emits what it finds already there (reports, or a finished batch). Off: a batch still in progress starts from its statuses at that moment, and only later changes trigger. A batch already finished when first read is reported all the same (pasted IDs of yesterday's campaign are not silent), and a batch added to Batch IDs later is followed from its first report, so that nothing of it is missed.",
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			onlyStatusesOption(
				'With Batch Finished, the summary still counts every report and lists the reports in these statuses.',
			),
			formatOption,
		],
	},
];

/**
 * Shown in the editor while Batch IDs lists more batches than one poll reads (the ids counted as
 * the trigger reads them: separated by commas, semicolons, spaces or new lines, or a list).
 */
export const triggerHints: NodeHint[] = [
	{
		message: `Batch IDs lists more than ${count(BATCHES_PER_POLL)} batches. ${TURNS} For a campaign this large, the Bulk SMS Status Trigger receives each report as it happens, at any size (it needs a URL the service can reach).`,
		type: 'warning',
		location: 'ndv',
		whenToDisplay: 'always',
		displayCondition: `={{ String($parameter["batchIds"] ?? "").split(/[\\s,;]+/).filter((id) => id !== "").length > ${BATCHES_PER_POLL} }}`,
	},
];
