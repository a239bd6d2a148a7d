import type { INodeProperties } from 'n8n-workflow';

import { onlyStatusesOption } from '../shared/descriptions';
import { DEFAULT_MEMORY, MAX_MEMORY } from './memory';

export const statusTriggerProperties: INodeProperties[] = [
	{
		displayName:
			'Give the service the Production URL above as its callback URL, with your secret added: <code>?token=YOUR-SECRET</code> (or <code>https://user:password@...</code> with Basic Auth).',
		name: 'setupNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Authentication',
		name: 'authentication',
		type: 'options',
		noDataExpression: true,
		default: 'token',
		description:
			'How the service proves a callback comes from it. Without it, anyone who finds the URL could start this workflow with made-up reports.',
		options: [
			{
				name: 'Secret in the URL',
				value: 'token',
				description: 'The callback URL ends with ?token=SECRET',
			},
			{
				name: 'Basic Auth',
				value: 'basicAuth',
				description: 'The service sends a username and password (user:password@ in the URL)',
			},
			{
				name: 'None',
				value: 'none',
				description:
					'Accept every callback. Only behind a network that only the service can reach.',
			},
		],
	},
	{
		displayName: 'Secret',
		name: 'secret',
		type: 'string',
		typeOptions: { password: true },
		default: '',
		required: true,
		displayOptions: { show: { authentication: ['token'] } },
		description:
			'A long random value only you and the service know, e.g. the output of <code>openssl rand -hex 24</code>. Callbacks without it are answered 401 and start nothing.',
	},
	{
		displayName: 'Username',
		name: 'username',
		type: 'string',
		default: '',
		required: true,
		displayOptions: { show: { authentication: ['basicAuth'] } },
	},
	{
		displayName: 'Password',
		name: 'password',
		type: 'string',
		typeOptions: { password: true },
		default: '',
		required: true,
		displayOptions: { show: { authentication: ['basicAuth'] } },
		description: 'A long random value, e.g. the output of <code>openssl rand -hex 24</code>',
	},
	{
		displayName: 'Trigger On',
		name: 'emit',
		type: 'options',
		noDataExpression: true,
		default: 'final',
		options: [
			{
				name: 'Final Statuses Only',
				value: 'final',
				action: 'On final statuses (callback URL)',
				description: 'One item per message when it is delivered or has failed',
			},
			{
				name: 'Every Status Change',
				value: 'all',
				action: 'On every status change (callback URL)',
				description: 'One item per report received, ENROUTE included',
			},
			{
				name: 'Chosen Statuses',
				value: 'statuses',
				action: 'On chosen statuses (callback URL)',
				description: 'One item per report in the statuses chosen below',
			},
		],
	},
	{
		...onlyStatusesOption(),
		displayName: 'Statuses',
		description: 'Emit only reports in these statuses',
		displayOptions: { show: { emit: ['statuses'] } },
	},
	{
		displayName: 'Batch IDs',
		name: 'batchIds',
		type: 'string',
		default: '',
		placeholder: '1234567890123456789, 1234567890123456790',
		description:
			'Emit only reports of these batches (separated by commas, spaces or new lines). Empty: every batch.',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Remember Last N Reports',
				name: 'memory',
				type: 'number',
				typeOptions: { minValue: 100, maxValue: MAX_MEMORY },
				default: DEFAULT_MEMORY,
				description:
					'How many reports the trigger remembers so that a repeated callback does not start the workflow twice. About 20 bytes a report (40 for a final status) in the workflow.',
			},
		],
	},
];
