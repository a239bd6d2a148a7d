/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * How the three nodes are found and told apart in n8n's node creator: the words a
 * search can match (codex aliases), what each trigger's entry, actions and subtitle say about how
 * it works, and where Docs leads. The real search, in n8n's editor, is checked by the e2e suite
 * (e2e/server.e2e.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { INodeType, INodeTypeDescription } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { HarnessNodeTypes } from '../engine/harness';
import { BulkSms } from '../../nodes/BulkSms/BulkSms.node';
import { BulkSmsTrigger } from '../../nodes/BulkSmsTrigger/BulkSmsTrigger.node';
import { BulkSmsStatusTrigger } from '../../nodes/BulkSmsStatusTrigger/BulkSmsStatusTrigger.node';
import { BulkSmsApi } from '../../credentials/BulkSmsApi.credentials';

const ROOT = path.resolve(__dirname, '..', '..');
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const PACKAGE = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
	repository: { url: string };
};
/** The repository's page on GitHub, where its README is shown. */
const REPOSITORY = PACKAGE.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');

interface Codex {
	alias: string[];
	resources: Record<'primaryDocumentation' | 'credentialDocumentation', Array<{ url: string }>>;
}

const NODES: Array<[string, INodeTypeDescription, string, string]> = [
	['BulkSms', new BulkSms().description, 'BulkSms/BulkSms.node.json', 'bulk-sms-node'],
	[
		'BulkSmsTrigger',
		new BulkSmsTrigger().description,
		'BulkSmsTrigger/BulkSmsTrigger.node.json',
		'bulk-sms-trigger',
	],
	[
		'BulkSmsStatusTrigger',
		new BulkSmsStatusTrigger().description,
		'BulkSmsStatusTrigger/BulkSmsStatusTrigger.node.json',
		'bulk-sms-status-trigger',
	],
];

const codexOf = (file: string) =>
	JSON.parse(fs.readFileSync(path.join(ROOT, 'nodes', file), 'utf8')) as Codex;

/** GitHub's anchor for each heading of the README. */
const ANCHORS = new Set(
	[...README.matchAll(/^#+ (.+)$/gm)].map(([, heading]) =>
		heading
			.toLowerCase()
			.replace(/[^\w\- ]/g, '')
			.replace(/ /g, '-'),
	),
);

describe('the node creator', () => {
	it.each(['send SMS', 'delivery status', 'SMS delivery', 'SMS'])(
		'a search for "%s" matches an alias of the Bulk SMS entry whole',
		(search) => {
			// n8n scores a search against each alias and display name; an alias that is the search
			// itself scores the most (docs/decisions.md, "Found in the node creator").
			for (const file of ['BulkSms/BulkSms.node.json', 'BulkSmsTrigger/BulkSmsTrigger.node.json'])
				expect(codexOf(file).alias.map((alias) => alias.toLowerCase())).toContain(
					search.toLowerCase(),
				);
		},
	);

	it('the Status Trigger is found by the delivery searches too', () => {
		const aliases = codexOf('BulkSmsStatusTrigger/BulkSmsStatusTrigger.node.json').alias;
		expect(aliases).toEqual(expect.arrayContaining(['delivery status', 'SMS delivery', 'SMS']));
	});

	it.each(NODES)("%s's Docs lead to its section of the README on GitHub", (_, __, file, anchor) => {
		const { resources } = codexOf(file);
		expect(resources.primaryDocumentation).toEqual([{ url: `${REPOSITORY}#${anchor}` }]);
		expect(resources.credentialDocumentation).toEqual([{ url: `${REPOSITORY}#credentials` }]);
		expect(ANCHORS).toContain(anchor);
		expect(ANCHORS).toContain('credentials');
		expect(new BulkSmsApi().documentationUrl).toBe(`${REPOSITORY}#credentials`);
	});

	const triggerOn = (description: INodeTypeDescription) =>
		description.properties.find((property) => property.displayName === 'Trigger On')
			?.options as Array<{ value: string; action?: string }>;

	it('each trigger says how it works: its description, and its actions (n8n lists them by name)', () => {
		const [polling, callbacks] = [NODES[1][1], NODES[2][1]];
		expect(polling.description).toMatch(/polls the batches you list \(no public URL needed\)/);
		expect(callbacks.description).toMatch(/callbacks at a public URL/);
		const pollingActions = triggerOn(polling).map((option) => option.action);
		const callbackActions = triggerOn(callbacks).map((option) => option.action);
		expect(pollingActions).toEqual([
			'On every status change (polls batches)',
			'On final statuses (polls batches)',
			'On batch finished (polls batches)',
		]);
		expect(callbackActions.every((action) => action?.endsWith('(callback URL)'))).toBe(true);
	});

	it.each<[INodeType, string, string]>([
		[new BulkSmsTrigger(), 'final', 'Polls: final statuses'],
		[new BulkSmsTrigger(), 'batchFinal', 'Polls: batch finished'],
		[new BulkSmsStatusTrigger(), 'final', 'Callbacks: final statuses'],
		[new BulkSmsStatusTrigger(), 'changes', 'Callbacks: every status change'],
	])('the canvas subtitle says how the trigger works (%#)', (nodeType, emit, subtitle) => {
		const { name, subtitle: expression } = nodeType.description;
		const node = {
			id: 'n',
			name: 'Trigger',
			type: name,
			typeVersion: 1,
			position: [0, 0] as [number, number],
			parameters: { emit },
		};
		const workflow = new Workflow({
			nodes: [node],
			connections: {},
			active: false,
			nodeTypes: new HarnessNodeTypes({ [name]: nodeType }),
		});
		const shown = workflow.expression.getSimpleParameterValue(
			node,
			String(expression),
			'internal',
			{},
		);
		expect(shown).toBe(subtitle);
	});
});
