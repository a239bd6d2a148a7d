import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

export class BulkSmsApi implements ICredentialType {
	name = 'bulkSmsApi';

	displayName = 'Bulk SMS API';

	icon: Icon = {
		light: 'file:../nodes/BulkSms/bulkSms.svg',
		dark: 'file:../nodes/BulkSms/bulkSms.dark.svg',
	};

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-bulk-sms#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: 'http://127.0.0.1:8555',
			placeholder: 'https://sms.example.com',
			description:
				'Address of the Bulk SMS service, without /api/sms. The default is the local sandbox (npm run sandbox).',
			required: true,
		},
		{
			displayName: 'Username',
			name: 'username',
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
		},
		{
			displayName: 'Service Time Zone',
			name: 'timeZone',
			type: 'string',
			default: 'UTC',
			placeholder: 'Europe/London',
			description:
				'IANA time zone the service uses for delivery dates and validity periods (the service does not state it). Ask your provider; UTC if unsure.',
		},
	];

	// n8n applies Basic auth itself, so the password never passes through node code.
	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			auth: {
				username: '={{$credentials.username}}',
				password: '={{$credentials.password}}',
			},
		},
	};

	// n8n counts any non-2xx answer as a failure, and the interface leaves get_status of an
	// unknown batch unspecified. A send with no destination and no message is the one request
	// the interface answers in the normal body (accepted = false): it sends and costs nothing.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/api/sms/send',
			method: 'POST',
			headers: { Accept: 'application/json', 'Content-Type': 'application/x-www-form-urlencoded' },
			body: 'destination=&message=',
		},
		rules: [
			{ type: 'responseCode', properties: { value: 401, message: 'Invalid username or password' } },
			{ type: 'responseCode', properties: { value: 403, message: 'Invalid username or password' } },
		],
	};
}
