/** The node's operations table: what the editor is given, and what an unknown operation gets. */
import {
	BULK_SMS,
	errorOf,
	HarnessNodeTypes,
	loadPackageNodeType,
	runWorkflow,
} from '../engine/harness';
import { OPERATIONS } from '../../nodes/BulkSms/actions/router';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { credentialsFor, getStatus, line, trigger } from './workflow';
import type { INodeTypeDescription } from 'n8n-workflow';
import { makeDescription, makeNodeName, NodeConnectionTypes, Workflow } from 'n8n-workflow';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(() => sandbox.stop());

function description(): INodeTypeDescription {
	const type = loadPackageNodeType(BULK_SMS);
	if (!type || !('properties' in type.description)) throw new Error('BulkSms not loaded');
	return type.description;
}

describe('Bulk SMS operations', () => {
	it.each([
		['send', 'Send SMS'],
		['getStatus', 'Get Delivery Status'],
	])('a node added for %s is named "%s", and as a tool says what it does', (operation, name) => {
		// n8n's own helpers: the editor names a new node, and the AI Agent describes a tool, with them.
		const parameters = { resource: 'sms', operation };
		expect(makeNodeName(parameters, description())).toBe(name);
		expect(makeDescription(parameters, description())).toBe(`${name} in Bulk SMS`);
		// The AI Agent tool variant n8n derives from usableAsTool: same description, ai_tool output.
		const tool = { ...description(), outputs: [NodeConnectionTypes.AiTool] };
		expect(makeNodeName(parameters, tool)).toBe(`${name} in Bulk SMS`);
	});

	it.each(OPERATIONS.map(({ value, action }) => [value, action]))(
		'the canvas subtitle of %s is its action, "%s", as n8n evaluates it',
		(operation, action) => {
			const node = { ...getStatus({}), parameters: { resource: 'sms', operation } };
			const workflow = new Workflow({
				nodes: [node],
				connections: {},
				active: false,
				nodeTypes: new HarnessNodeTypes({}),
			});
			const subtitle = String(description().subtitle);
			expect(workflow.expression.getSimpleParameterValue(node, subtitle, 'internal', {})).toBe(
				action,
			);
		},
	);

	it('refuses an operation it does not know with a sentence, sending nothing', async () => {
		const node = { ...getStatus({ batchId: '1' }), name: 'Bulk SMS' };
		node.parameters = { ...node.parameters, operation: 'sendFax' };
		const run = await runWorkflow({
			...line(trigger(), node),
			credentials: credentialsFor(sandbox),
		});

		expect(errorOf(run, 'Bulk SMS')).toMatchObject({
			message: 'The Bulk SMS node has no operation "sendFax"',
			description: expect.stringContaining('Send SMS (send), Get Delivery Status (getStatus)'),
		});
		expect(sandbox.requests()).toEqual([]);
	});
});
