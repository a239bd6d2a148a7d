import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { onlyStatusesOption, triggerOnChoice } from '../shared/descriptions';
import { DEFAULT_MEMORY, MAX_MEMORY } from './memory';
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

/** Version 1's methods, whose secret is a node parameter: kept so saved workflows still work. */
const legacyAuthenticationOptions = [
	{
		name: 'Secret in the URL, Saved in the Workflow (Old)',
		value: 'token',
		description:
			'The callback URL ends with ?token=SECRET, the secret set below (move it to a credential)',
	},
	{
		name: 'Basic Auth, Saved in the Workflow (Old)',
		value: 'basicAuth',
		description:
			'The service sends the username and password set below (move them to a credential)',
	},
];

/** How this trigger works, in each Trigger On action (the polling trigger's say "polls batches"). */
const HOW = 'callback URL';

/** Version 1 saved Every Status Change as 'all'. */
const EVERY_CHANGE_V1: INodePropertyOptions = { ...triggerOnChoice('changes', HOW), value: 'all' };

/** Version 1 only: what 1.1 does with Every Status Change and Options → Only Statuses. */
const CHOSEN_STATUSES: INodePropertyOptions = {
	name: 'Chosen Statuses',
	value: 'statuses',
	action: `On chosen statuses (${HOW})`,
	description: 'One item per report in the statuses chosen below',
};

const AUTHENTICATION_DESCRIPTION =
	'How the service proves a callback comes from it. Without it, anyone who finds the URL could start this workflow with made-up reports.';

export const statusTriggerProperties: INodeProperties[] = [
	{
		displayName: `Set up in this order. 1. Below, choose a credential, or create one with a long random secret. Test this trigger waits for it: without a secret every callback would be refused. 2. ${PRODUCTION_URL_STEP}, followed by ?token= and the secret (with Basic Auth: https://user:password@host/...). 3. ${PUBLISH_STEP}`,
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
			"This secret is saved in the workflow, so every export, copy and version of it carries the secret. To keep it encrypted in n8n's credentials instead: choose Secret in the URL (or Basic Auth) under Authentication, create the credential with the same secret (or user and password), and save. The callback URL stays the same: the service needs no change.",
		name: 'legacyNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { authentication: ['token', 'basicAuth'] } },
	},
	{
		displayName: 'Authentication',
		name: 'authentication',
		type: 'options',
		noDataExpression: true,
		// Version 1 saved this default left out, so it must stay the old method there.
		default: 'token',
		description: AUTHENTICATION_DESCRIPTION,
		options: [...authenticationOptions, ...legacyAuthenticationOptions],
		displayOptions: { show: { '@version': [1] } },
	},
	{
		displayName: 'Authentication',
		name: 'authentication',
		type: 'options',
		noDataExpression: true,
		default: 'secretCredential',
		description: AUTHENTICATION_DESCRIPTION,
		options: authenticationOptions,
		displayOptions: { show: { '@version': [{ _cnd: { gte: 1.1 } }] } },
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
		// Version 1's own words for the same choices, and Chosen Statuses beside them.
		options: [triggerOnChoice('final', HOW), EVERY_CHANGE_V1, CHOSEN_STATUSES],
		displayOptions: { show: { '@version': [1] } },
	},
	{
		displayName: 'Trigger On',
		name: 'emit',
		type: 'options',
		noDataExpression: true,
		default: 'final',
		options: [triggerOnChoice('final', HOW), triggerOnChoice('changes', HOW)],
		displayOptions: { show: { '@version': [{ _cnd: { gte: 1.1 } }] } },
	},
	{
		...onlyStatusesOption(),
		displayName: 'Statuses',
		description: 'Emit only reports in these statuses',
		displayOptions: { show: { emit: ['statuses'], '@version': [1] } },
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
