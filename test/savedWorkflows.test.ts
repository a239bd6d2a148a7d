/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * Workflows users have saved keep their meaning: every value a saved node holds (parameter
 * names, option values, the options collections' names) is still a parameter the node reads, and
 * n8n's editor finds no issue in it. n8n drops a saved value whose parameter is gone, so a rename
 * would silently lose a setting (a Do Not Send To list, a Max Credits); an option value that is
 * gone shows as an error. What each value does is run by the node's own suites.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import {
	NodeHelpers,
	type INode,
	type INodeParameters,
	type INodeProperties,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { BulkSms } from '../nodes/BulkSms/BulkSms.node';
import { BulkSmsStatusTrigger } from '../nodes/BulkSmsStatusTrigger/BulkSmsStatusTrigger.node';
import { BulkSmsTrigger } from '../nodes/BulkSmsTrigger/BulkSmsTrigger.node';
import { editorValues } from './engine/creator';

const NODE_TYPES: Record<string, INodeType> = {
	'n8n-nodes-bulk-sms.bulkSms': new BulkSms(),
	'n8n-nodes-bulk-sms.bulkSmsTrigger': new BulkSmsTrigger(),
	'n8n-nodes-bulk-sms.bulkSmsStatusTrigger': new BulkSmsStatusTrigger(),
};

const saved = JSON.parse(
	fs.readFileSync(path.join(__dirname, 'fixtures', 'saved-workflows.json'), 'utf8'),
) as Array<{ saved: string; node: INode }>;

/** Every leaf of the saved parameters, as [path, value]. */
function leaves(parameters: INodeParameters, prefix = ''): Array<[string, unknown]> {
	return Object.entries(parameters).flatMap(([key, value]) =>
		value && typeof value === 'object' && !Array.isArray(value)
			? leaves(value as INodeParameters, `${prefix}${key}.`)
			: [[`${prefix}${key}`, value] as [string, unknown]],
	);
}

function valueAt(parameters: INodeParameters | null, at: string): unknown {
	return at
		.split('.')
		.reduce<unknown>((value, key) => (value as INodeParameters)?.[key], parameters);
}

/**
 * Saved values of option lists that the node no longer offers, as [name, value]: the editor
 * marks them, and the node would meet a value it does not know. (n8n-workflow's own issue
 * check only looks for required values.)
 */
function unsupported(
	properties: INodeProperties[],
	values: INodeParameters,
	node: INode,
	description: INodeTypeDescription,
): Array<[string, unknown]> {
	return properties.flatMap((property) => {
		const value = values[property.name];
		if (value === undefined) return [];
		if (!NodeHelpers.displayParameter(values, property, node, description, values)) return [];
		if (property.type === 'collection') {
			const nested = (property.options ?? []) as INodeProperties[];
			return unsupported(nested, value as INodeParameters, node, description);
		}
		if (property.type !== 'options' && property.type !== 'multiOptions') return [];
		const offered = new Set(
			(property.options ?? []).map((option) => (option as { value: unknown }).value),
		);
		const given = Array.isArray(value) ? value : [value];
		return given
			.filter((one) => !offered.has(one))
			.map((one): [string, unknown] => [property.name, one]);
	});
}

describe.each(saved)('$saved', ({ node }) => {
	const { description } = NODE_TYPES[node.type];

	it('keeps every saved value: n8n reads each one back', () => {
		const read = NodeHelpers.getNodeParameters(
			description.properties,
			node.parameters,
			false,
			false,
			node,
			description,
		);
		for (const [at, value] of leaves(node.parameters))
			expect([at, valueAt(read, at)]).toEqual([at, value]);
	});

	it('shows no issue in the editor', () => {
		// The editor checks the node with its defaults filled in, as it holds it.
		const parameters = editorValues(description, node);
		const issues = NodeHelpers.getNodeParametersIssues(
			description.properties,
			{ ...node, parameters },
			description,
		);
		expect(issues).toBeNull();
		expect(unsupported(description.properties, parameters, node, description)).toEqual([]);
	});
});
