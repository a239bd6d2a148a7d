/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * Who may call the status trigger, and where its secret lives: in a credential (version 1.1),
 * or in the node parameters of workflows saved with version 1, which keep working. A setup that
 * could only refuse every callback is refused at activation (and for "Test this trigger").
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { NodeHelpers } from 'n8n-workflow';
import type { INode, INodeParameters } from 'n8n-workflow';

import { BulkSmsStatusTrigger } from '../../nodes/BulkSmsStatusTrigger/BulkSmsStatusTrigger.node';
import { testCredential } from '../engine/harness';
import { runWebhookSetup, startWebhookServer, type WebhookServer } from '../engine/webhook';
import {
	captureWarnings,
	CURRENT_VERSION,
	jsonReport,
	LEGACY_VERSION,
	post,
	SECRET,
	STATUS_TRIGGER,
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
const basicHeader = (userPassword: string) => ({
	token: null,
	headers: { Authorization: `Basic ${Buffer.from(userPassword).toString('base64')}` },
});

describe('workflows saved with version 1 (the secret in node parameters)', () => {
	const saved = JSON.parse(
		fs.readFileSync(path.join(__dirname, 'fixtures', 'saved-v1-workflows.json'), 'utf8'),
	) as Array<{ nodes: INode[] }>;
	const [tokenNode, basicNode] = saved.map((workflow) => workflow.nodes[0]);

	const startSaved = async (node: INode) =>
		await startWebhookServer({
			node,
			nodeTypes: { [STATUS_TRIGGER]: new BulkSmsStatusTrigger() },
		});

	it('with the secret in the URL: the right one starts the workflow, another gets 401', async () => {
		server = await startSaved(tokenNode);
		const wrong = await post(server, jsonReport(), 'application/json', { token: 'guess' });
		const right = await post(server, jsonReport({ status: 'ENROUTE', delivery_date: '' }));
		expect([wrong.status, right.status]).toEqual([401, 200]);
		// emit: all, as saved: the ENROUTE is emitted.
		expect(server.executions().map((items) => items[0].json.status)).toEqual(['ENROUTE']);
	});

	it('with Basic Auth: the saved user and password, and nothing else', async () => {
		server = await startSaved(basicNode);
		const { username, password } = basicNode.parameters as Record<string, string>;
		const wrong = await post(server, jsonReport(), 'application/json', basicHeader('sms:nope'));
		const right = await post(
			server,
			jsonReport(),
			'application/json',
			basicHeader(`${username}:${password}`),
		);
		expect([wrong.status, right.status]).toEqual([401, 200]);
		expect(server.executions()).toHaveLength(1);
	});

	it('the editor shows how to move the secret to a credential, only while it is in the workflow', () => {
		const shown = (node: INode) => displayedNotices(node);
		expect(shown(tokenNode)).toEqual(['legacyNotice']);
		expect(shown(basicNode)).toEqual(['legacyNotice']);
		// The same version-1 node moved to the credential: the notice is gone, the setup shows.
		const moved = { ...tokenNode, parameters: { authentication: 'secretCredential' } };
		expect(shown(moved)).toEqual(['setupNotice']);
		expect(shown(triggerNode({}, CURRENT_VERSION))).toEqual(['setupNotice']);
		expect(shown(triggerNode({ authentication: 'none' }))).toEqual(['noAuthenticationNotice']);
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
	const legacyBasic = (username: string, password: string) => ({
		typeVersion: LEGACY_VERSION,
		parameters: { authentication: 'basicAuth', username, password },
	});

	it.each<[string, TriggerOptions, string]>([
		[
			'an empty secret (version 1)',
			{ typeVersion: LEGACY_VERSION, parameters: { secret: '' } },
			'the Secret is empty: set a long random value',
		],
		[
			'a secret of spaces (version 1)',
			{ typeVersion: LEGACY_VERSION, parameters: { secret: ' \t ' } },
			'the Secret is only spaces',
		],
		[
			'a secret whose expression gives a number (version 1)',
			{ typeVersion: LEGACY_VERSION, parameters: { secret: '={{ 12345 }}' } },
			'the Secret is a number, not text: make its expression give the secret as text',
		],
		[
			'a Basic Auth user without a password (version 1)',
			legacyBasic('sms', ''),
			'the Basic Auth password is empty',
		],
		['a Basic Auth password without a user (version 1)', legacyBasic('', 'pw'), 'user is empty'],
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
		[
			'a version 1 secret whose expression now gives an object',
			{ typeVersion: LEGACY_VERSION },
			(spec) => {
				(spec.node.parameters as INodeParameters).secret = '={{ { a: 1 } }}';
			},
			'the Secret is an object',
		],
		[
			'a version 1 secret whose expression gives nothing',
			{ typeVersion: LEGACY_VERSION },
			(spec) => {
				(spec.node.parameters as INodeParameters).secret = '={{ $nothing.here() }}';
			},
			'the Secret gives nothing',
		],
	])(
		'%s: every caller gets the generic 401, never a 500; the log says why',
		async (_name, options, breakIt, reason) => {
			const warnings = captureWarnings();
			try {
				const spec = triggerSpec({
					...options,
					credentials: { bulkSmsCallbackApi: { secret: SECRET } },
				});
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

/** The parameters as the editor holds them: saved values, defaults of the node's version. */
function editorValues(node: INode): INodeParameters {
	return NodeHelpers.getNodeParameters(
		description.properties,
		node.parameters,
		true,
		false,
		node,
		description,
	) as INodeParameters;
}

function visibleParameters(node: INode): string[] {
	const values = editorValues(node);
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
