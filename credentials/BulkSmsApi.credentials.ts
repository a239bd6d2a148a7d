import type {
	IAuthenticate,
	Icon,
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

const SERVICE_PATH = '/api/sms/send';

/**
 * What a failed test says, by HTTP status: the service's own answers (401/403), and what a Base
 * URL that points somewhere else gets (404, 405). n8n shows these messages as they are; for a
 * network failure (refused, unknown host, bad URL) it shows its own text and lets a credential
 * add nothing (docs/decisions.md, "Credential test messages").
 */
const RESPONSE_MESSAGES: Array<[number, string]> = [
	[401, 'Wrong username or password: the service refused them (HTTP 401)'],
	[
		403,
		'The service refused this account (HTTP 403): check the username and password, and that the account may send SMS',
	],
	[
		404,
		`Nothing answers at the Base URL + ${SERVICE_PATH} (HTTP 404): the Base URL must be the service address without /api/sms, e.g. https://sms.example.com`,
	],
	[
		405,
		`The server at the Base URL does not take ${SERVICE_PATH} (HTTP 405): it is not a Bulk SMS service, or the Base URL has an extra path`,
	],
	[429, 'The service is rate limiting requests (HTTP 429): test again in a minute'],
	[
		500,
		'The service failed (HTTP 500): the address answers, but the service had an error; test again later',
	],
	[502, 'A gateway before the service failed (HTTP 502): test again later, or ask your provider'],
	[503, 'The service is unavailable (HTTP 503): test again later'],
	[
		504,
		'A gateway before the service timed out (HTTP 504): test again later, or ask your provider',
	],
];

/**
 * The test follows no redirect (the interface never redirects, and n8n would send the
 * credentials along to any origin). n8n's tester shows a rule's message as it is, so unlike
 * the nodes' errors it cannot name the address the redirect gave.
 */
const REDIRECT_MESSAGES: Array<[number, string]> = [301, 302, 303, 307, 308].map((status) => [
	status,
	`The Base URL redirects elsewhere (HTTP ${status}): the test did not follow it, as the Bulk SMS service never redirects, so the credentials were not sent there. Set the Base URL to the service's own address (the one it redirects to, if that is your provider's)`,
]);

const CREDENTIAL_TEST_RULES: ICredentialTestRequest['rules'] = [
	...REDIRECT_MESSAGES,
	...RESPONSE_MESSAGES,
].map(([value, message]) => ({ type: 'responseCode', properties: { value, message } }));

export class BulkSmsApi implements ICredentialType {
	name = 'bulkSmsApi';

	displayName = 'Bulk SMS API';

	icon: Icon = {
		light: 'file:../nodes/BulkSms/bulkSms.svg',
		dark: 'file:../nodes/BulkSms/bulkSms.dark.svg',
	};

	documentationUrl = 'https://github.com/n8n-nodes-bulk-sms/n8n-nodes-bulk-sms#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			placeholder: 'https://sms.example.com',
			description:
				'Address of your Bulk SMS service as your provider gives it, without /api/sms (starts with https:// or http://)',
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

	/**
	 * HTTP Basic with the account's username and password, put on each request by n8n, so the
	 * password never passes through node code. A function rather than n8n's `generic` form
	 * (`={{$credentials.username}}`): n8n evaluates a generic form's two expressions on every
	 * request, in n8n 2.x inside an isolate, which in a campaign of one request per row was the
	 * largest part of n8n's work (docs/benchmarks.md). The values are the same: n8n's evaluation
	 * gave the field as text, and '' for an empty one.
	 */
	authenticate: IAuthenticate = async (
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> => {
		const text = (value: unknown) => (value ? String(value) : '');
		requestOptions.auth = {
			username: text(credentials.username),
			password: text(credentials.password),
		};
		return requestOptions;
	};

	// n8n counts any non-2xx answer as a failure, and the interface leaves get_status of an
	// unknown batch unspecified. A send with no destination and no message is the one request
	// the interface answers in the normal body (accepted = false): it sends and costs nothing.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: SERVICE_PATH,
			method: 'POST',
			headers: { Accept: 'application/json', 'Content-Type': 'application/x-www-form-urlencoded' },
			body: 'destination=&message=',
			// Honoured by n8n's HTTP helper since 1.x: a 3xx comes back as a failed answer.
			disableFollowRedirect: true,
		},
		rules: CREDENTIAL_TEST_RULES,
	};
}
