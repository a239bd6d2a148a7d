import type { INodeProperties } from 'n8n-workflow';

import { onlyStatusesOption, triggerOnChoice } from '../shared/descriptions';
import { DEFAULT_MEMORY_SIZE, MAX_MEMORY_SIZE, MEMORY_DAYS } from './memory';
import { DEFAULT_MAX_REPORTS, MAX_MAX_REPORTS } from './read';

/**
 * The panel shows, in this order: Webhook URLs (folded), these notices, the credentials, the
 * parameters; the notices say where each step is in that order (seen in n8n 2.41.1's editor).
 */
const PRODUCTION_URL_STEP =
	'Click Webhook URLs just above, choose Production URL, and give that URL to the service as its callback URL';

const PUBLISH_STEP =
	'Publish the workflow: the Production URL takes callbacks only while the workflow is published.';

const authenticationOptions = [
	{
		name: 'Secret in the URL',
		value: 'secretCredential',
		description:
			'The callback URL ends with ?token= and the secret of a Bulk SMS Callback API credential',
	},
	{
		name: 'Basic Auth',
		value: 'basicAuthCredential',
		description:
			'The service sends the user and password of a Bulk SMS Callback Basic Auth API credential (user:password@ in the URL)',
	},
	{
		name: 'None',
		value: 'none',
		description: 'Accept every callback. Only behind a network that only the service can reach.',
	},
];

/** How this trigger works, in each Trigger On action (the polling trigger's say "polls batches"). */
const HOW = 'callback URL';

const AUTHENTICATION_DESCRIPTION =
	'How the service proves a callback comes from it. Without it, anyone who finds the URL could start this workflow with made-up reports.';

export const statusTriggerProperties: INodeProperties[] = [
	{
		displayName: `Set up in this order. 1. Below, choose the callback credential, or create one with a long random secret. Test this trigger waits for it: without a secret every callback would be refused. 2. ${PRODUCTION_URL_STEP}, followed by ?token= and the secret (with Basic Auth: https://user:password@host/...). 3. ${PUBLISH_STEP}`,
		name: 'setupNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { authentication: ['secretCredential', 'basicAuthCredential'] } },
	},
	{
		displayName: `Anyone who finds this URL can start the workflow with made-up reports. 1. ${PRODUCTION_URL_STEP}. 2. ${PUBLISH_STEP}`,
		name: 'noAuthenticationNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { authentication: ['none'] } },
	},
	{
		displayName:
			"Each callback starts an execution: a campaign's thousands would fill the Executions list. In this workflow's Settings, set Save Successful Production Executions to Do Not Save: n8n then keeps only the executions that failed.",
		name: 'executionsNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Authentication',
		name: 'authentication',
		type: 'options',
		noDataExpression: true,
		default: 'secretCredential',
		description: AUTHENTICATION_DESCRIPTION,
		options: authenticationOptions,
	},
	{
		displayName: 'Trigger On',
		name: 'emit',
		type: 'options',
		noDataExpression: true,
		default: 'final',
		options: [triggerOnChoice('final', HOW), triggerOnChoice('changes', HOW)],
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
			onlyStatusesOption(
				'Together with Trigger On: Final Statuses Only and DELIVRD emit deliveries only.',
			),
			{
				displayName: 'Max Reports per Callback',
				name: 'maxReports',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: MAX_MAX_REPORTS },
				default: DEFAULT_MAX_REPORTS,
				description:
					'A callback carrying more reports is answered 413 and starts nothing, so that no caller can hold n8n with one huge request. Providers send one report per callback, or a few.',
			},
			{
				displayName: 'Memory Size',
				name: 'memorySize',
				type: 'number',
				typeOptions: { minValue: 100, maxValue: MAX_MEMORY_SIZE },
				default: DEFAULT_MEMORY_SIZE,
				description: `How many reports the trigger remembers at most, so that a repeated or late callback does not start the workflow again. Each report is kept ${MEMORY_DAYS} days from its first callback, in 16 bytes of the workflow's data (100,000: 1.6 MB). With more reports than this in ${MEMORY_DAYS} days, the oldest are forgotten first, and a repeat of one forgotten starts the workflow again.`,
			},
		],
	},
];
