/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	@n8n/community-nodes/node-usable-as-tool
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * The node types a test workflow can hold: a Manual Trigger and a Set Items node standing in
 * for n8n-nodes-base, and the package's own nodes and credential, loaded from source on first use.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { NodeConnectionTypes, NodeHelpers } from 'n8n-workflow';
import type {
	ICredentialType,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypes,
	ITriggerFunctions,
	ITriggerResponse,
	IVersionedNodeType,
} from 'n8n-workflow';

const ROOT = path.resolve(__dirname, '..', '..');
export const PACKAGE_NAME = 'n8n-nodes-bulk-sms';

export type AnyNodeType = INodeType | IVersionedNodeType;

/** Minimal Manual Trigger: the real one (n8n-nodes-base) just emits one empty item. */
class ManualTrigger implements INodeType {
	description: INodeType['description'] = {
		displayName: 'Manual Trigger',
		name: 'manualTrigger',
		group: ['trigger'],
		version: 1,
		description: 'Runs the flow on clicking a button in n8n',
		defaults: { name: 'When clicking "Execute workflow"' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};
	// As n8n-nodes-base's ManualTrigger: WorkflowExecute awaits the emit in manual mode.
	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		const manualTriggerFunction = async () => {
			this.emit([this.helpers.returnJsonArray([{}])]);
		};
		return { manualTriggerFunction };
	}
}

/**
 * Emits the items in its `items` parameter (a JSON string or an array), one output item
 * each, paired with input item 0; it lets a test feed many items into the node under test.
 */
class SetItems implements INodeType {
	description: INodeType['description'] = {
		displayName: 'Set Items',
		name: 'setItems',
		group: ['transform'],
		version: 1,
		description: 'Emits the given items',
		defaults: { name: 'Set Items' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [{ displayName: 'Items', name: 'items', type: 'json', default: '[]' }],
	};
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const raw = this.getNodeParameter('items', 0) as string | IDataObject[];
		const items = (typeof raw === 'string' ? JSON.parse(raw) : raw) as IDataObject[];
		return [items.map((json) => ({ json, pairedItem: { item: 0 } }))];
	}
}

/**
 * A write-back as users build it (a Set or Google Sheets node): one item per input item, with the
 * value of one expression evaluated for it, e.g. `{{ $('Contacts').item.json.row_number }}`, which
 * n8n resolves through the items' pairing.
 */
class WriteBack implements INodeType {
	description: INodeType['description'] = {
		displayName: 'Write Back',
		name: 'writeBack',
		group: ['transform'],
		version: 1,
		description: 'Evaluates Value for every item',
		defaults: { name: 'Write Back' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [{ displayName: 'Value', name: 'value', type: 'string', default: '' }],
	};
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [
			this.getInputData().map((_, item) => ({
				json: { value: this.getNodeParameter('value', item) as string },
				pairedItem: { item },
			})),
		];
	}
}

/** Type names of the harness's helper nodes, for building specs. */
export const MANUAL_TRIGGER = 'n8n-nodes-base.manualTrigger';
export const SET_ITEMS = 'harness.setItems';
export const WRITE_BACK = 'harness.writeBack';
export const BULK_SMS = `${PACKAGE_NAME}.bulkSms`;
export const BULK_SMS_TRIGGER = `${PACKAGE_NAME}.bulkSmsTrigger`;
export const BULK_SMS_STATUS_TRIGGER = `${PACKAGE_NAME}.bulkSmsStatusTrigger`;

/** Loads `export class <className>` from a TypeScript source file if it exists yet. */
function loadClass<T>(relativePath: string, className: string): T | undefined {
	const file = path.join(ROOT, relativePath);
	if (!fs.existsSync(file)) return undefined;
	// Required lazily by path so the harness compiles before the package's files exist.
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const mod = require(file) as Record<string, new () => T>;
	const Ctor = mod[className];
	if (typeof Ctor !== 'function') throw new Error(`${relativePath} does not export ${className}`);
	return new Ctor();
}

/**
 * Our package's parts, read from source on first use, so a test that does not touch them
 * does not compile them (they may be mid-edit) and the harness builds before they exist.
 */
const PACKAGE_NODE_SOURCES: Record<string, [string, string]> = {
	[BULK_SMS]: ['nodes/BulkSms/BulkSms.node.ts', 'BulkSms'],
	[BULK_SMS_TRIGGER]: ['nodes/BulkSmsTrigger/BulkSmsTrigger.node.ts', 'BulkSmsTrigger'],
	[BULK_SMS_STATUS_TRIGGER]: [
		'nodes/BulkSmsStatusTrigger/BulkSmsStatusTrigger.node.ts',
		'BulkSmsStatusTrigger',
	],
};
/** The package's node type names. */
export const PACKAGE_NODE_TYPES = Object.keys(PACKAGE_NODE_SOURCES);
const PACKAGE_CREDENTIAL_SOURCES: Record<string, [string, string]> = {
	bulkSmsApi: ['credentials/BulkSmsApi.credentials.ts', 'BulkSmsApi'],
	bulkSmsCallbackApi: ['credentials/BulkSmsCallbackApi.credentials.ts', 'BulkSmsCallbackApi'],
	bulkSmsCallbackBasicAuthApi: [
		'credentials/BulkSmsCallbackBasicAuthApi.credentials.ts',
		'BulkSmsCallbackBasicAuthApi',
	],
};

export function loadPackageNodeType(typeName: string): AnyNodeType | undefined {
	const source = PACKAGE_NODE_SOURCES[typeName];
	return source && loadClass<AnyNodeType>(...source);
}

export function loadPackageCredentialType(name: string): ICredentialType | undefined {
	const source = PACKAGE_CREDENTIAL_SOURCES[name];
	return source && loadClass<ICredentialType>(...source);
}

export class HarnessNodeTypes implements INodeTypes {
	constructor(private readonly types: Record<string, AnyNodeType>) {}

	getByName(nodeType: string): AnyNodeType {
		this.types[nodeType] ??= loadPackageNodeType(nodeType) as AnyNodeType;
		const type = this.types[nodeType];
		if (!type) throw new Error(`harness: unknown node type "${nodeType}"`);
		return type;
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(nodeType), version);
	}

	getKnownTypes(): IDataObject {
		return {};
	}
}

export function buildNodeTypes(extra: Record<string, AnyNodeType> = {}): HarnessNodeTypes {
	return new HarnessNodeTypes({
		[MANUAL_TRIGGER]: new ManualTrigger(),
		[SET_ITEMS]: new SetItems(),
		[WRITE_BACK]: new WriteBack(),
		...extra,
	});
}
