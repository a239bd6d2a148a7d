import type { Icon, ICredentialType, INodeProperties } from 'n8n-workflow';

/**
 * The secret that Bulk SMS Status Trigger expects in its callback URL (`?token=`), kept by n8n
 * encrypted with its other credentials instead of in the workflow. Nothing is sent with it: the
 * service sends it to n8n. Its test (the trigger's `callbackSecretTest`) checks it can be used.
 */
export class BulkSmsCallbackApi implements ICredentialType {
	name = 'bulkSmsCallbackApi';

	displayName = 'Bulk SMS Callback API';

	icon: Icon = {
		light: 'file:../nodes/BulkSms/bulkSms.svg',
		dark: 'file:../nodes/BulkSms/bulkSms.dark.svg',
	};

	documentationUrl =
		'https://github.com/n8n-nodes-bulk-sms/n8n-nodes-bulk-sms#bulk-sms-status-trigger';

	properties: INodeProperties[] = [
		{
			displayName: 'Secret',
			name: 'secret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				"A long random value only you and the service know, e.g. the output of <code>openssl rand -hex 24</code>. The service calls the trigger's Production URL followed by <code>?token=</code> and this secret.",
		},
	];
}
