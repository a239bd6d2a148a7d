/*
 * The node creator's actions of a trigger, as n8n's editor (2.41.1, the node creator's action
 * list in editor-ui) builds them, and the node it adds from one. For a node whose display name
 * says "Trigger", the editor takes the first property whose display name is "Event", "Events" or
 * "Trigger On" (the first in the list, whatever node version it is shown for), and makes one
 * action per option: its name is the option's `action`, and its values set that property to the
 * option's value. A node added from an action is the node type's newest version with those values
 * as its parameters; the editor fills in the defaults of that version.
 */
import {
	NodeHelpers,
	type INode,
	type INodeParameters,
	type INodeProperties,
	type INodeTypeDescription,
} from 'n8n-workflow';

export interface CreatorAction {
	/** What the node creator lists, e.g. "On final statuses (callback URL)". */
	name: string;
	/** The parameters a node added from it starts with. */
	values: INodeParameters;
}

const EVENT_PROPERTIES = ['event', 'events', 'trigger on'];

export function triggerActions(description: INodeTypeDescription): CreatorAction[] {
	const property = description.properties.find((candidate) =>
		EVENT_PROPERTIES.includes(candidate.displayName.toLowerCase()),
	);
	const options = (property?.options ?? []) as Array<{
		name: string;
		value: string;
		action?: string;
	}>;
	return options.map((option) => ({
		name: option.action ?? option.name,
		values: { [property!.name]: property!.type === 'multiOptions' ? [option.value] : option.value },
	}));
}

/** The node type's newest version, as the editor adds a node. */
export function newestVersion(description: INodeTypeDescription): number {
	const { version } = description;
	return Array.isArray(version) ? Math.max(...version) : version;
}

/** A node added from `action`: the newest version, the action's values as its parameters. */
export function nodeFromAction(
	description: INodeTypeDescription,
	type: string,
	action: CreatorAction,
): INode {
	return {
		id: 'from-action',
		name: description.defaults.name ?? description.displayName,
		type,
		typeVersion: newestVersion(description),
		position: [0, 0],
		parameters: { ...action.values },
	};
}

/** The parameters as the editor holds them: the saved values, the defaults of the node's version. */
export function editorValues(description: INodeTypeDescription, node: INode): INodeParameters {
	return NodeHelpers.getNodeParameters(
		description.properties,
		node.parameters,
		true,
		false,
		node,
		description,
	) as INodeParameters;
}

/**
 * Values of the node's option lists that its version does not offer, as [name, value]: the
 * editor shows such a value raw, as an issue, and the node meets a value it does not know.
 */
export function valuesNotOffered(description: INodeTypeDescription, node: INode): string[] {
	const values = editorValues(description, node);
	const shown = (property: INodeProperties) =>
		NodeHelpers.displayParameter(values, property, node, description, values);
	return description.properties
		.filter((property) => property.type === 'options' && shown(property))
		.filter((property) => values[property.name] !== undefined)
		.filter(
			(property) =>
				!(property.options ?? []).some(
					(option) => (option as { value: unknown }).value === values[property.name],
				),
		)
		.map((property) => `${property.name}: ${String(values[property.name])}`);
}
