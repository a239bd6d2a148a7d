import type { Icon, ICredentialType, INodeProperties } from 'n8n-workflow';

/**
 * The HTTP Basic user and password that Bulk SMS Status Trigger expects of the service's
 * callbacks (`https://user:password@...`), kept by n8n encrypted instead of in the workflow. Its
 * test (the trigger's `callbackBasicAuthTest`) checks they can be used.
 */
export class BulkSmsCallbackBasicAuthApi implements ICredentialType {
	name = 'bulkSmsCallbackBasicAuthApi';

	displayName = 'Bulk SMS Callback Basic Auth API';

	icon: Icon = {
		light: 'file:../nodes/BulkSms/bulkSms.svg',
		dark: 'file:../nodes/BulkSms/bulkSms.dark.svg',
	};

	documentationUrl =
		'https://github.com/n8n-nodes-bulk-sms/n8n-nodes-bulk-sms#bulk-sms-status-trigger';

	properties: INodeProperties[] = [
		{
			displayName: 'User',
			name: 'user',
			type: 'string',
			default: '',
			required: true,
		},
		{
			displayName: 'Password',
			name: 'password',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'A long random value, e.g. the output of <code>openssl rand -hex 24</code>',
		},
	];
}
