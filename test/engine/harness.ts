/*
 * Test harness: runs workflows, polls and credential tests through the real n8n engine
 * (n8n-core 2.41.1, n8n-workflow 2.41.0, the versions n8n 2.41.1 ships), so node tests
 * exercise expressions, credential injection, pairedItem, continueOnFail and static data as
 * the product does. API: runWorkflow, outputOf, errorOf, pollOnce, testCredential.
 *
 * FINDINGS (from the installed packages, n8n's CLI source, and harness.test.ts experiments)
 *
 * Expressions. n8n-workflow's `Expression.expressionEngine` defaults to 'legacy' (in-process);
 * isolated-vm is only loaded by `Expression.initExpressionEngine({ engine: 'vm' })`, which
 * nothing here calls, so no setting is needed (we pin 'legacy' explicitly). The product's
 * default is N8N_EXPRESSION_ENGINE=vm (@n8n/config 2.39); neither sandboxed engine starts in
 * jest here (vm: isolated-vm unbuilt; quickjs: dynamic import needs --experimental-vm-modules).
 * Plain `$json` / `$credentials` expressions evaluate the same; e2e runs cover the rest.
 *
 * Credentials. n8n applies `ICredentialType.authenticate` in the CLI
 * (packages/cli/src/credentials-helper.ts, CredentialsHelper.authenticate), not in n8n-core:
 * 'generic' resolves every key and value with workflow.expression.getSimpleParameterValue
 * (mode 'internal', additional keys { $credentials }; falsy results become '') and assigns
 * them into requestOptions[outerKey] (auth, headers, qs, body). `getDecrypted` fills the type's
 * property defaults (NodeHelpers.getNodeParameters). HarnessCredentialsHelper mirrors both.
 *
 * HTTP (httpRequestWithAuthentication / httpRequest; axios inside @n8n/backend-network):
 * - Body: without `encoding: 'text'` axios' forcedJSONParsing JSON.parses any JSON-looking
 *   body whatever `json` says (json:false too): 19-digit ids come back corrupted. With
 *   `encoding: 'text'` the body is the raw string; with `returnFullResponse: true` the result
 *   is { body, headers, statusCode, statusMessage }. `json: true` only adds
 *   `Accept: application/json` when no Accept header is set.
 * - Status >= 400 throws NodeApiError: httpCode '401' | '404' | '429' | '500' | '503', a
 *   generic message (e.g. 'Authorization failed - please check your credentials'),
 *   description 'Request failed with status code N', and `cause` the AxiosError with
 *   cause.response.status, cause.response.data (raw text under encoding 'text'),
 *   cause.response.headers (e.g. 'retry-after'), cause.code ERR_BAD_REQUEST (4xx) or
 *   ERR_BAD_RESPONSE (5xx). `ignoreHttpStatusErrors: true` returns instead of throwing.
 * - A 401 that throws is sent TWICE: httpRequestWithAuthentication re-runs preAuthentication
 *   and retries once (isTokenExpiredStatusCode). With ignoreHttpStatusErrors it is sent once.
 * - No response: NodeApiError with httpCode = cause.code: ECONNREFUSED ('The service refused
 *   the connection - perhaps it is offline'), ECONNRESET (connection dropped after sending),
 *   ECONNABORTED (the `timeout` option fired; not ETIMEDOUT). No cause.response.
 *
 * Credential test (CLI CredentialsTester.testCredentials; mirrored by testCredential below).
 *
 * Static data and polling. `Workflow` wraps staticData in an ObservableObject: a write through
 * it sets a non-enumerable `__dataChanged` (writes into plain objects added during the same
 * poll are not observed; assigning a top-level key of the node's data is). Default path
 * (N8N_POLLER_DURABLE_CURSORS_ENABLED and N8N_SCHEDULER_POLL_TRIGGERS_ENABLED are off by
 * default): the active workflow keeps one in-memory Workflow across polls; only `__emit`
 * (poll returned non-null) calls WorkflowStaticDataService.saveStaticData, which writes to the
 * DB if `__dataChanged` and clears it. A null result saves nothing; a throw goes to
 * `__emitError` (a failed execution) and saves nothing, but the in-memory writes made before
 * the throw stay for the next poll and reach the DB at the next emit. Manual "fetch test
 * event" runs the workflow: WorkflowExecute.executePollNode builds
 * `new PollContext(workflow, node, additionalData, 'manual', 'manual')` on a fresh Workflow;
 * its result is the node's output, a throw fails the run, and hookFunctionsSave never saves
 * static data in manual mode. pollOnce mirrors all of this.
 */
import * as path from 'node:path';
import * as fs from 'node:fs';

import {
	ExecuteContext,
	ExecutionLifecycleHooks,
	ExternalSecretsProxy,
	PollContext,
	PollTriggerExecutor,
	RoutingNode,
	Tracing,
	TriggersAndPollers,
	WorkflowExecute,
} from 'n8n-core';
import {
	Expression,
	ICredentialsHelper,
	NodeHelpers,
	Workflow,
	createRunExecutionData,
	deepCopy,
	isExpression,
} from 'n8n-workflow';
import type {
	ExecutionError,
	ICredentialDataDecryptedObject,
	ICredentialType,
	ICredentials,
	ICredentialsExpressionResolveValues,
	IConnections,
	IDataObject,
	IExecuteData,
	IExecuteFunctions,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialTestResult,
	INodeCredentialsDetails,
	INodeExecutionData,
	INodeParameters,
	INodeProperties,
	INodeType,
	INodeTypes,
	IRequestOptionsSimplified,
	IRun,
	ITriggerFunctions,
	ITriggerResponse,
	IVersionedNodeType,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';

Expression.setExpressionEngine('legacy');

const ROOT = path.resolve(__dirname, '..', '..');
export const PACKAGE_NAME = 'n8n-nodes-bulk-sms';

// ---------------------------------------------------------------------------------------
// Node types
// ---------------------------------------------------------------------------------------

type AnyNodeType = INodeType | IVersionedNodeType;

/** Minimal Manual Trigger: the real one (n8n-nodes-base) just emits one empty item. */
export class ManualTrigger implements INodeType {
	description: INodeType['description'] = {
		displayName: 'Manual Trigger',
		name: 'manualTrigger',
		group: ['trigger'],
		version: 1,
		description: 'Runs the flow on clicking a button in n8n',
		defaults: { name: 'When clicking "Execute workflow"' },
		inputs: [],
		outputs: ['main'],
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
export class SetItems implements INodeType {
	description: INodeType['description'] = {
		displayName: 'Set Items',
		name: 'setItems',
		group: ['transform'],
		version: 1,
		description: 'Emits the given items',
		defaults: { name: 'Set Items' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [{ displayName: 'Items', name: 'items', type: 'json', default: '[]' }],
	};
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const raw = this.getNodeParameter('items', 0) as string | IDataObject[];
		const items = (typeof raw === 'string' ? JSON.parse(raw) : raw) as IDataObject[];
		return [items.map((json) => ({ json, pairedItem: { item: 0 } }))];
	}
}

/** Type names of the harness's helper nodes, for building specs. */
export const MANUAL_TRIGGER = 'n8n-nodes-base.manualTrigger';
export const SET_ITEMS = 'harness.setItems';
export const BULK_SMS = `${PACKAGE_NAME}.bulkSms`;
export const BULK_SMS_TRIGGER = `${PACKAGE_NAME}.bulkSmsTrigger`;

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
};
const PACKAGE_CREDENTIAL_SOURCES: Record<string, [string, string]> = {
	bulkSmsApi: ['credentials/BulkSmsApi.credentials.ts', 'BulkSmsApi'],
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

function buildNodeTypes(extra: Record<string, AnyNodeType> = {}): HarnessNodeTypes {
	return new HarnessNodeTypes({
		[MANUAL_TRIGGER]: new ManualTrigger(),
		[SET_ITEMS]: new SetItems(),
		...extra,
	});
}

// ---------------------------------------------------------------------------------------
// Credentials
// ---------------------------------------------------------------------------------------

/**
 * In-memory stand-in for the CLI's CredentialsHelper. Data is keyed by credential type
 * name; each `getDecrypted` returns a fresh copy (as decrypting from the DB would) with the
 * type's property defaults applied, like `CredentialsHelper.applyDefaultsAndOverwrites`.
 */
export class HarnessCredentialsHelper extends ICredentialsHelper {
	private readonly types = new Map<string, ICredentialType>();

	constructor(
		credentialTypes: ICredentialType[],
		private readonly store: Record<string, ICredentialDataDecryptedObject>,
	) {
		super();
		for (const type of credentialTypes) this.types.set(type.name, type);
	}

	private getType(name: string): ICredentialType {
		const type = this.types.get(name) ?? loadPackageCredentialType(name);
		if (!type) throw new Error(`harness: unknown credential type "${name}"`);
		this.types.set(name, type);
		return type;
	}

	getParentTypes(name: string): string[] {
		const parents = this.getType(name).extends ?? [];
		return parents.flatMap((parent) => [parent, ...this.getParentTypes(parent)]);
	}

	isCredentialUsableByNode(credentialType: string, nodeType: string): boolean {
		const type = this.types.get(credentialType) ?? loadPackageCredentialType(credentialType);
		if (!type?.restrictToSupportedNodes) return true;
		return (type.supportedNodes ?? []).some((n) => nodeType.endsWith(`.${n}`) || n === nodeType);
	}

	/** Mirrors CredentialsHelper.authenticate (packages/cli/src/credentials-helper.ts). */
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		incomingRequestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const requestOptions = incomingRequestOptions as IHttpRequestOptions;
		const { authenticate } = this.getType(typeName);
		if (typeof authenticate === 'function') return await authenticate(credentials, requestOptions);
		if (typeof authenticate !== 'object') return requestOptions;
		if (!workflow || !node) {
			throw new Error('Workflow and node are required for declarative credential authentication');
		}
		requestOptions.headers ??= {};
		if (authenticate.type !== 'generic') return requestOptions;
		// n8n resolves both keys and values with the workflow's expression engine, with only
		// `$credentials` as additional key, and assigns them into requestOptions[outerKey].
		const target = requestOptions as unknown as Record<string, Record<string, unknown>>;
		for (const [outerKey, outerValue] of Object.entries(authenticate.properties)) {
			for (const [key, value] of Object.entries(outerValue as IDataObject)) {
				const keyResolved = resolveCredentialValue(key, credentials, workflow, node);
				const valueResolved = resolveCredentialValue(value as string, credentials, workflow, node);
				target[outerKey] ??= {};
				target[outerKey][keyResolved] = valueResolved;
			}
		}
		return requestOptions;
	}

	/** Mirrors CredentialsHelper.preAuthentication, minus the DB write. */
	async preAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		_node: INode,
		credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const type = this.getType(typeName);
		const expirable = type.properties.find(
			(p) => p.type === 'hidden' && p.typeOptions?.expirable === true,
		);
		if (expirable?.name === undefined || typeof type.preAuthentication !== 'function') {
			return undefined;
		}
		if (credentials[expirable.name] !== '' && !credentialsExpired) return undefined;
		const output = (await type.preAuthentication.call(
			helpers,
			credentials,
		)) as ICredentialDataDecryptedObject;
		if (output[expirable.name] === undefined) return undefined;
		this.store[typeName] = { ...this.store[typeName], ...output };
		return Object.assign(credentials, output);
	}

	async runPreAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const type = this.getType(typeName);
		if (typeof type.preAuthentication !== 'function') return undefined;
		return (await type.preAuthentication.call(helpers, credentials)) as
			| ICredentialDataDecryptedObject
			| undefined;
	}

	async getCredentials(
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentials> {
		throw new Error(`harness: getCredentials(${type}) is not supported; use getDecrypted`);
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		raw?: boolean,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): Promise<ICredentialDataDecryptedObject> {
		const stored = this.store[type];
		if (stored === undefined) {
			throw new Error(`harness: no credentials of type "${type}" given to the harness`);
		}
		const data = deepCopy(stored);
		if (raw === true) return data;
		// getNodeParameters returns INodeParameters; credential values are the same shapes.
		const withDefaults = (NodeHelpers.getNodeParameters(
			this.getCredentialsProperties(type),
			data as INodeParameters,
			true,
			false,
			null,
			null,
		) ?? {}) as unknown as ICredentialDataDecryptedObject;
		if (!expressionResolveValues) return withDefaults;
		// Like the CLI: credential fields may be expressions resolved in the node's context.
		const v = expressionResolveValues;
		return v.workflow.expression.getParameterValue(
			withDefaults as INodeParameters,
			v.runExecutionData,
			v.runIndex,
			v.itemIndex,
			v.node.name,
			v.connectionInputData,
			mode,
			{},
			executeData,
			false,
			withDefaults,
		) as ICredentialDataDecryptedObject;
	}

	async updateCredentials(
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		this.store[type] = data;
	}

	async updateCredentialsOauthTokenData(
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		this.store[type] = { ...this.store[type], oauthTokenData: data.oauthTokenData };
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		const own = this.getType(type).properties;
		const parents = this.getType(type).extends ?? [];
		const merged: INodeProperties[] = [];
		for (const parent of parents) {
			NodeHelpers.mergeNodeProperties(merged, this.getCredentialsProperties(parent));
		}
		NodeHelpers.mergeNodeProperties(merged, own);
		return merged;
	}
}

/** Mirrors CredentialsHelper.resolveValue: falsy results become ''. */
function resolveCredentialValue(
	value: string,
	credentials: ICredentialDataDecryptedObject,
	workflow: Workflow,
	node: INode,
): string {
	if (!isExpression(value)) return value;
	const resolved = workflow.expression.getSimpleParameterValue(
		node,
		value,
		'internal',
		{ $credentials: credentials },
		undefined,
		'',
	);
	return resolved ? resolved.toString() : '';
}

// ---------------------------------------------------------------------------------------
// Workflow and additional data
// ---------------------------------------------------------------------------------------

export interface EngineOptions {
	/** Credential data by credential type name (never logged). */
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	/** Extra node types by full type name (e.g. tiny nodes defined in a test). */
	nodeTypes?: Record<string, AnyNodeType>;
	/** Extra credential types; they override the package's of the same name. */
	credentialTypes?: ICredentialType[];
}

export interface WorkflowSpec extends EngineOptions {
	nodes: INode[];
	connections: IConnections;
	staticData?: IDataObject;
}

let executionCounter = 0;

/**
 * Gives each node an `INodeCredentialsDetails` for every credential type its description
 * declares and the spec supplies, like choosing the credential in the editor.
 */
function attachCredentials(
	nodes: INode[],
	nodeTypes: HarnessNodeTypes,
	credentials: Record<string, ICredentialDataDecryptedObject>,
): INode[] {
	return nodes.map((node) => {
		const declared = nodeTypes.getByNameAndVersion(node.type, node.typeVersion).description
			.credentials;
		const attached = { ...(node.credentials ?? {}) };
		for (const { name } of declared ?? []) {
			if (credentials[name] !== undefined && attached[name] === undefined) {
				attached[name] = { id: `harness-${name}`, name: `${name} (harness)` };
			}
		}
		return Object.keys(attached).length > 0 ? { ...node, credentials: attached } : node;
	});
}

export function buildWorkflow(spec: WorkflowSpec): Workflow {
	const nodeTypes = buildNodeTypes(spec.nodeTypes);
	return new Workflow({
		id: 'harness-workflow',
		name: 'Harness workflow',
		nodes: attachCredentials(spec.nodes, nodeTypes, spec.credentials ?? {}),
		connections: spec.connections,
		active: false,
		nodeTypes,
		staticData: spec.staticData,
		settings: { executionOrder: 'v1', timezone: 'UTC' },
	});
}

/**
 * Additional data shaped like the CLI's WorkflowExecuteAdditionalData.getBase(), with the
 * services a unit test has no use for (sub-workflows, task runners) refusing clearly.
 */
export function buildAdditionalData(
	workflow: Workflow,
	options: EngineOptions,
	mode: WorkflowExecuteMode,
): IWorkflowExecuteAdditionalData {
	const executionId = `harness-${++executionCounter}`;
	const base = 'http://127.0.0.1:5678/';
	const workflowData: IWorkflowBase = {
		id: workflow.id,
		name: workflow.name ?? 'Harness workflow',
		active: false,
		isArchived: false,
		activeVersionId: null,
		nodes: Object.values(workflow.nodes),
		connections: workflow.connectionsBySourceNode,
		createdAt: new Date(),
		updatedAt: new Date(),
	};
	const refuse = (what: string) => async (): Promise<never> => {
		throw new Error(`harness: ${what} is not available in tests`);
	};
	return {
		credentialsHelper: new HarnessCredentialsHelper(options.credentialTypes ?? [], {
			...(options.credentials ?? {}),
		}),
		executeWorkflow: refuse('executeWorkflow (sub-workflows)'),
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		startRunnerTask: refuse('startRunnerTask (task runners)'),
		executionId,
		workflowId: workflow.id,
		userId: 'harness-user',
		currentNodeExecutionIndex: 0,
		restApiUrl: `${base}rest`,
		instanceBaseUrl: base,
		formBaseUrl: `${base}form`,
		formWaitingBaseUrl: `${base}form-waiting`,
		formTestBaseUrl: `${base}form-test`,
		webhookBaseUrl: `${base}webhook`,
		webhookWaitingBaseUrl: `${base}webhook-waiting`,
		webhookTestBaseUrl: `${base}webhook-test`,
		mcpBaseUrl: `${base}mcp`,
		mcpTestBaseUrl: `${base}mcp-test`,
		variables: {},
		logAiEvent: () => {},
		setExecutionStatus: () => {},
		externalSecretsProxy: new ExternalSecretsProxy(),
		workflowSettings: workflow.settings,
		hooks: new ExecutionLifecycleHooks(mode, executionId, workflowData),
	};
}

// ---------------------------------------------------------------------------------------
// Running workflows
// ---------------------------------------------------------------------------------------

/**
 * Runs the workflow from its Manual Trigger with n8n-core's WorkflowExecute, mode 'manual'.
 * `spec.staticData` is the object the Workflow wraps, so nodes' writes land in it; the
 * product would not save them (hookFunctionsSave skips static data in manual mode).
 */
export async function runWorkflow(spec: WorkflowSpec): Promise<IRun> {
	const workflow = buildWorkflow(spec);
	const additionalData = buildAdditionalData(workflow, spec, 'manual');
	const startNode = Object.values(workflow.nodes).find((n) => n.type === MANUAL_TRIGGER);
	if (!startNode) throw new Error('harness: the workflow needs a Manual Trigger');
	return await new WorkflowExecute(additionalData, 'manual').run({ workflow, startNode });
}

/** The items a node emitted on one output in its last run. */
export function outputOf(run: IRun, nodeName: string, outputIndex = 0): INodeExecutionData[] {
	const tasks = run.data.resultData.runData[nodeName];
	if (!tasks?.length) throw new Error(`harness: node "${nodeName}" did not run`);
	const task = tasks[tasks.length - 1];
	if (task.error) throw new Error(`harness: node "${nodeName}" failed: ${task.error.message}`);
	return task.data?.main?.[outputIndex] ?? [];
}

/** The error the run stopped with at this node, or undefined if the node did not fail. */
export function errorOf(run: IRun, nodeName: string): ExecutionError | undefined {
	const tasks = run.data.resultData.runData[nodeName];
	const taskError = tasks?.[tasks.length - 1]?.error;
	if (taskError) return taskError;
	const runError = run.data.resultData.error;
	return run.data.resultData.lastNodeExecuted === nodeName ? runError : undefined;
}

// ---------------------------------------------------------------------------------------
// Polling
// ---------------------------------------------------------------------------------------

export interface PollSpec extends EngineOptions {
	node: INode;
	/**
	 * The workflow's static data as the active workflow holds it in memory between polls.
	 * Pass the same object to every call: the Workflow wraps it, so poll() writes land in it.
	 */
	staticData?: IDataObject;
	/**
	 * The static data as the database holds it. Pass the same object to every call; it is
	 * rewritten only when a 'trigger' poll emitted items while changes were pending.
	 */
	persisted?: IDataObject;
	mode?: 'trigger' | 'manual';
	/**
	 * The poll n8n runs when the workflow is activated: afterwards the product saves the static
	 * data whatever the poll returned (WorkflowTriggerActivator: saveStaticData after registering).
	 */
	activation?: boolean;
}

export interface PollOutcome {
	result: INodeExecutionData[][] | null;
	/** In-memory static data after the poll (the `spec.staticData` object, if given). */
	staticData: IDataObject;
	/** Saved static data after the poll (the `spec.persisted` object, if given). */
	persisted: IDataObject;
	/**
	 * What a 'trigger' poll threw, as the product records it (via __emitError: a failed
	 * execution). A failed activation poll throws instead: n8n then refuses to activate.
	 */
	error?: Error;
}

/**
 * The product keeps one Workflow per active workflow, so its `__dataChanged` flag survives
 * polls that changed data without emitting. The harness builds a Workflow per poll (whose
 * ObservableObject resets the flag), so it carries the pending flag here instead.
 */
const pendingChanges = new WeakMap<IDataObject, boolean>();

type ExecutorDeps = ConstructorParameters<typeof PollTriggerExecutor>;

/**
 * n8n-core's own PollTriggerExecutor, which decides what happens to a poll's result or error
 * (ActiveWorkflowTriggers.activatePollTrigger uses it for the activation poll and each tick).
 * Its logger and error reporter only write diagnostics, so silent stand-ins do; the tracing is
 * the real no-op one, and TriggersAndPollers the real one (it runs nodeType.poll()).
 */
let executor: PollTriggerExecutor | undefined;
function pollTriggerExecutor(): PollTriggerExecutor {
	if (executor) return executor;
	const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
	const logger = { ...silent, scoped: () => logger } as unknown as ExecutorDeps[0];
	const errorReporter = { error: () => {} } as unknown as ExecutorDeps[3];
	const pollers = new TriggersAndPollers();
	executor = new PollTriggerExecutor(logger, pollers, new Tracing(), errorReporter);
	return executor;
}

/**
 * Runs a polling trigger's poll() once through n8n-core's real PollContext.
 *
 * 'trigger' (active workflow): run by n8n-core's PollTriggerExecutor, as n8n does: the
 * activation poll (`spec.activation`) as `execute(true)`, whose error fails the activation (so
 * pollOnce throws it), and every later poll as `execute()`, whose error goes to __emitError and
 * is returned in `error`: the product records a failed execution and polls again later, with
 * the in-memory data as poll() left it. poll() writes into `spec.staticData`; a non-null result
 * is emitted, which saves pending changes into `spec.persisted`.
 *
 * 'manual' (the editor's "fetch test event"): built like WorkflowExecute.executePollNode,
 * `new PollContext(workflow, node, additionalData, 'manual', 'manual')`, on a copy of the
 * saved data, since a manual run uses a fresh Workflow and never saves static data. An error
 * is thrown, as the editor shows it; `spec.staticData` and `spec.persisted` stay untouched.
 */
export async function pollOnce(spec: PollSpec): Promise<PollOutcome> {
	const mode = spec.mode ?? 'trigger';
	const persisted = spec.persisted ?? {};
	const staticData = mode === 'manual' ? deepCopy(persisted) : (spec.staticData ?? {});
	const workflow = buildWorkflow({ ...spec, nodes: [spec.node], connections: {}, staticData });
	const node = workflow.getNode(spec.node.name) as INode;
	const additionalData = buildAdditionalData(workflow, spec, mode);
	const nodeType = workflow.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
	if (!nodeType.poll) throw new Error(`harness: node type "${node.type}" has no poll()`);

	if (mode === 'manual') {
		const context = new PollContext(workflow, node, additionalData, 'manual', 'manual');
		const result = await nodeType.poll.call(context);
		return { result, staticData, persisted };
	}

	// TriggerExecutionContextFactory.getExecutePollFunctions: __emit saves static data
	// (WorkflowStaticDataService.saveStaticData: only if __dataChanged, then clears it) and
	// starts an execution; __emitError records a failed execution.
	const saveStaticData = () => {
		const changed =
			pendingChanges.get(staticData) === true || workflow.staticData.__dataChanged === true;
		if (!changed) return;
		replaceContents(persisted, deepCopy(staticData));
		workflow.staticData.__dataChanged = false;
		pendingChanges.set(staticData, false);
	};
	const outcome: PollOutcome = { result: null, staticData, persisted };
	const context = new PollContext(
		workflow,
		node,
		additionalData,
		'trigger',
		'activate',
		(data) => {
			outcome.result = data;
			saveStaticData();
		},
		(error) => (outcome.error = error),
	);
	const execute = pollTriggerExecutor().create(workflow, node, context, () => true);
	try {
		await execute(spec.activation === true);
	} finally {
		if (workflow.staticData.__dataChanged === true) pendingChanges.set(staticData, true);
	}
	// WorkflowTriggerActivator saves the static data once the activation poll succeeded.
	if (spec.activation) saveStaticData();
	return outcome;
}

function replaceContents(target: IDataObject, source: IDataObject): void {
	for (const key of Object.keys(target)) delete target[key];
	Object.assign(target, source);
}

// ---------------------------------------------------------------------------------------
// Credential test
// ---------------------------------------------------------------------------------------

/**
 * Runs a credential type's request-based `test` the way n8n's CredentialsTester
 * (packages/cli/src/services/credentials-tester.service.ts, testCredentials) does: the
 * request becomes the routing of a temporary NoOp node, run by n8n-core's RoutingNode with
 * the decrypted data (defaults applied), so `authenticate` and `httpRequestWithAuthentication`
 * are the real ones. The verdict mirrors the tester's:
 * - the request throws and `error.cause.response` exists: the first `responseCode` rule
 *   whose value equals the status gives the message; otherwise a status outside 199..299
 *   gives the response's status text, or "Received HTTP status code: N" without one;
 * - it throws with `error.cause.code` (no response, e.g. ECONNREFUSED): the code is the message;
 * - anything else thrown: the error's message;
 * - it succeeds: a `responseSuccessBody` rule whose `key` (lodash path into the body the
 *   routing produced) equals its `value` fails with its message; else "Connection successful!".
 */
export async function testCredential(
	typeName: string,
	data: ICredentialDataDecryptedObject,
	options: Pick<EngineOptions, 'credentialTypes'> = {},
): Promise<INodeCredentialTestResult> {
	const type =
		options.credentialTypes?.find((t) => t.name === typeName) ??
		loadPackageCredentialType(typeName);
	if (!type) throw new Error(`harness: unknown credential type "${typeName}"`);
	if (!type.test)
		return { status: 'Error', message: 'No testing function found for this credential.' };
	const testRequest = type.test;

	const noOp: INodeType = {
		description: {
			displayName: 'No Operation, do nothing',
			name: 'noOp',
			group: ['organization'],
			version: 1,
			description: 'No Operation',
			defaults: { name: 'No Operation, do nothing' },
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: typeName, required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					routing: { request: testRequest.request },
					default: '',
				},
			],
		},
	};
	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: 'noOp',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { [typeName]: { id: 'harness-test', name: 'harness test' } },
	};
	const workflow = new Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: new HarnessNodeTypes({ noOp }),
	});
	const engine: EngineOptions = { credentialTypes: [type], credentials: { [typeName]: data } };
	const additionalData = buildAdditionalData(workflow, engine, 'internal');
	const decrypted = await additionalData.credentialsHelper.getDecrypted(
		additionalData,
		{ id: 'harness-test', name: 'harness test' },
		typeName,
		'internal',
	);
	const context = new ExecuteContext(
		workflow,
		node,
		additionalData,
		'internal',
		createRunExecutionData({ resultData: { runData: {} } }),
		0,
		[],
		{ main: [[{ json: {} }]] },
		{ node, data: {}, source: null },
		[],
	);
	const routing = new RoutingNode(context, noOp, {
		id: 'harness-test',
		name: 'harness test',
		type: typeName,
		data: decrypted,
	});

	let response: INodeExecutionData[][] | undefined;
	try {
		response = await routing.runNode();
	} catch (caught) {
		const error = caught as Error & {
			cause?: { code?: string; response?: { status: number; statusText?: string } };
		};
		const errorResponse = error.cause?.response;
		if (errorResponse) {
			for (const rule of testRequest.rules ?? []) {
				if (rule.type === 'responseCode' && errorResponse.status === rule.properties.value) {
					return { status: 'Error', message: rule.properties.message };
				}
			}
			if (errorResponse.status < 199 || errorResponse.status > 299) {
				return {
					status: 'Error',
					message: errorResponse.statusText || `Received HTTP status code: ${errorResponse.status}`,
				};
			}
		} else if (error.cause?.code) {
			return { status: 'Error', message: error.cause.code };
		}
		return { status: 'Error', message: error.message.toString() };
	}
	for (const rule of testRequest.rules ?? []) {
		if (rule.type !== 'responseSuccessBody') continue;
		const body = response?.[0]?.[0]?.json;
		if (getPath(body, rule.properties.key) === rule.properties.value) {
			return { status: 'Error', message: rule.properties.message };
		}
	}
	return { status: 'OK', message: 'Connection successful!' };
}

/** lodash.get for dotted paths (the tester uses lodash/get; lodash is not a dependency here). */
function getPath(value: unknown, key: string): unknown {
	return key
		.split('.')
		.reduce<unknown>((current, part) => (current as IDataObject | undefined)?.[part], value);
}
