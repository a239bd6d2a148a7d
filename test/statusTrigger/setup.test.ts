/**
 * Who may call the Status Trigger (the secret lives in a credential, never in the workflow), and
 * what else it needs to keep a callback: a setup that could only refuse every callback, or lose
 * every report, is refused at activation (and for "Test this trigger"), with a sentence.
 */
import { NodeHelpers } from 'n8n-workflow';
import type { INode } from 'n8n-workflow';

import { BulkSmsStatusTrigger } from '../../nodes/BulkSmsStatusTrigger/BulkSmsStatusTrigger.node';
import { editorValues } from '../engine/creator';
import { testCredential } from '../engine/harness';
import { runWebhookSetup, startWebhookServer, type WebhookServer } from '../engine/webhook';
import {
	captureWarnings,
	jsonReport,
	post,
	SECRET,
	startTrigger,
	triggerNode,
	triggerSpec,
	type TriggerOptions,
} from './helpers';

let server: WebhookServer | undefined;
afterEach(async () => {
	await server?.stop();
	server = undefined;
});

const UNAUTHENTICATED = {
	error: 'Not authenticated: this callback URL takes only callbacks that carry its secret',
};
describe('where the secret lives', () => {
	it('the editor shows the steps of the setup, or the warning of None, and how to keep few executions', () => {
		expect(displayedNotices(triggerNode())).toEqual(['setupNotice', 'executionsNotice']);
		expect(displayedNotices(triggerNode({ authentication: 'none' }))).toEqual([
			'noAuthenticationNotice',
			'executionsNotice',
		]);
	});

	it('each credential selector says what it is for', () => {
		expect(description.credentials?.map((credential) => credential.displayName)).toEqual([
			'Callback Credential (Secret)',
			'Callback Credential (User and Password)',
			'Bulk SMS Account (Only for the Time Zone of Delivery Dates)',
		]);
	});

	it('a new node keeps its secret in a credential: none of it is in the workflow', async () => {
		const spec = triggerSpec();
		server = await startWebhookServer(spec);
		expect(JSON.stringify(spec.node)).not.toContain(SECRET);
		expect(visibleParameters(spec.node)).not.toEqual(
			expect.arrayContaining([expect.stringMatching(/^(secret|username|password)$/)]),
		);
		expect((await post(server, jsonReport())).status).toBe(200);
	});
});

describe('refused at activation and for "Test this trigger", with a sentence', () => {
	const secretCredential = (secret: string) => ({ bulkSmsCallbackApi: { secret } });
	const basicCredential = (user: string, password: string) => ({
		bulkSmsCallbackBasicAuthApi: { user, password },
	});
	const basicParameters = { authentication: 'basicAuthCredential' };

	it.each<[string, TriggerOptions, string]>([
		[
			'an empty secret in the credential',
			{ credentials: secretCredential('') },
			"the credential's Secret is empty",
		],
		[
			'a secret of spaces in the credential',
			{ credentials: secretCredential('   ') },
			"the credential's Secret is only spaces",
		],
		['no credential chosen', { credentials: {} }, 'no credential with the secret is chosen'],
		[
			'a Basic Auth user with a colon',
			{ parameters: basicParameters, credentials: basicCredential('a:b', SECRET) },
			'contains ":"',
		],
		[
			'a Basic Auth password of spaces',
			{ parameters: basicParameters, credentials: basicCredential('sms', '  ') },
			'the Basic Auth password is only spaces',
		],
		[
			'a Basic Auth user without a password',
			{ parameters: basicParameters, credentials: basicCredential('sms', '') },
			'the Basic Auth password is empty',
		],
		[
			'a Basic Auth password without a user',
			{ parameters: basicParameters, credentials: basicCredential('', 'pw') },
			'user is empty',
		],
		[
			'a mistyped time zone in the Bulk SMS Account',
			{ timeZone: 'Europe/Berlim' },
			'the Service Time Zone of the Bulk SMS credential, "Europe/Berlim", is not a time zone: use an IANA name',
		],
		['Batch IDs that are not ids', { parameters: { batchIds: '12a' } }, 'Batch IDs: '],
	])('%s', async (_name, options, sentence) => {
		const spec = triggerSpec(options);
		const expected = { message: expect.stringContaining(sentence) };
		await expect(startWebhookServer(spec)).rejects.toMatchObject(expected);
		await expect(runWebhookSetup(spec, 'manual', 'manual')).rejects.toMatchObject(expected);
	});

	it('names the trigger, and never quotes the secret', async () => {
		const spec = triggerSpec({ credentials: secretCredential(' ') });
		const refusal = (await runWebhookSetup(spec, 'trigger', 'activate').catch(
			(error: unknown) => error,
		)) as Error;
		expect(refusal.message).toMatch(/^Bulk SMS Status Trigger: the credential's Secret/);
	});

	it('None needs no secret', async () => {
		server = await startTrigger({ parameters: { authentication: 'none' }, credentials: {} });
		expect((await post(server, jsonReport(), 'application/json', { token: null })).status).toBe(
			200,
		);
	});
});

describe('a setup that goes wrong after activation', () => {
	it.each<[string, TriggerOptions, (spec: ReturnType<typeof triggerSpec>) => void, string]>([
		[
			"a credential's secret turned into a number",
			{},
			(spec) => {
				spec.credentials!.bulkSmsCallbackApi.secret = 12345 as unknown as string;
			},
			"the credential's Secret is a number",
		],
	])(
		'%s: every caller gets the generic 401, never a 500; the log says why',
		async (_name, options, breakIt, reason) => {
			const warnings = captureWarnings();
			try {
				const spec = triggerSpec(options);
				server = await startWebhookServer(spec);
				breakIt(spec);
				const res = await post(server, jsonReport());
				expect([res.status, JSON.parse(res.body)]).toEqual([401, UNAUTHENTICATED]);
				expect(warnings.lines).toEqual([
					expect.stringMatching(
						new RegExp(
							`^Bulk SMS Status Trigger refused a callback: the trigger's setup is wrong: .*${escape(reason)}`,
						),
					),
				]);
				expect(warnings.lines.join('\n')).not.toContain(SECRET);
			} finally {
				warnings.restore();
			}
		},
	);
});

describe('the credentials test what activation checks', () => {
	it.each<[string, Record<string, unknown>, string]>([
		['bulkSmsCallbackApi', { secret: '' }, 'The Secret is empty'],
		['bulkSmsCallbackApi', { secret: '  ' }, 'The Secret is only spaces'],
		['bulkSmsCallbackBasicAuthApi', { user: 'sms', password: '' }, 'The password is empty'],
		['bulkSmsCallbackBasicAuthApi', { user: '', password: SECRET }, 'The Basic Auth user is empty'],
	])('%s with %j fails: %s', async (type, data, message) => {
		await expect(testCredential(type, data as never)).resolves.toEqual({
			status: 'Error',
			message: expect.stringContaining(message),
		});
	});

	it.each<[string, Record<string, unknown>]>([
		['bulkSmsCallbackApi', { secret: SECRET }],
		['bulkSmsCallbackBasicAuthApi', { user: 'sms', password: SECRET }],
	])('%s passes with a usable secret', async (type, data) => {
		await expect(testCredential(type, data as never)).resolves.toMatchObject({ status: 'OK' });
	});
});

// ---------------------------------------------------------------- the editor's view

const description = new BulkSmsStatusTrigger().description;

function visibleParameters(node: INode): string[] {
	const values = editorValues(description, node);
	return description.properties
		.filter((property) => NodeHelpers.displayParameter(values, property, node, description))
		.map((property) => property.name);
}

function displayedNotices(node: INode): string[] {
	return visibleParameters(node).filter((name) => name.endsWith('Notice'));
}

function escape(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
