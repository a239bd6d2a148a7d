/**
 * Runs workflows through n8n-core's WorkflowExecute, with additional data shaped like the CLI's
 * (WorkflowExecuteAdditionalData.getBase()), so node tests exercise expressions, credential
 * injection, pairedItem and continueOnFail as the product does.
 *
 * Expressions: n8n-workflow's engine defaults to 'legacy' (in-process); the product's default,
 * the isolated-vm engine, does not start in jest here. Plain `$json` / `$credentials`
 * expressions evaluate the same; the e2e suite covers the rest.
 */
import { ExecutionLifecycleHooks, ExternalSecretsProxy, WorkflowExecute } from 'n8n-core';
import { Expression, Workflow } from 'n8n-workflow';
import type {
	ExecutionError,
	ICredentialDataDecryptedObject,
	ICredentialType,
	IConnections,
	IDataObject,
	INode,
	INodeExecutionData,
	IRun,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';

import { HarnessCredentialsHelper } from './credentials';
import { installDeduplication } from './deduplication';
import {
	buildNodeTypes,
	MANUAL_TRIGGER,
	type AnyNodeType,
	type HarnessNodeTypes,
} from './nodeTypes';

Expression.setExpressionEngine('legacy');

export interface EngineOptions {
	/** Credential data by credential type name (never logged). */
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	/** Extra node types by full type name (e.g. tiny nodes defined in a test). */
	nodeTypes?: Record<string, AnyNodeType>;
	/** Extra credential types; they override the package's of the same name. */
	credentialTypes?: ICredentialType[];
	/** n8n's variables, which expressions read as `$vars` (none unless given). */
	variables?: Record<string, string>;
}

export interface WorkflowSpec extends EngineOptions {
	/**
	 * The workflow's id: n8n's deduplication store keeps its records by it (Send's record of
	 * accepted sends among them). Each run gets a new one unless a test gives it, to run the
	 * same workflow again.
	 */
	workflowId?: string;
	/** How n8n runs it: 'manual' (the editor, the default), 'trigger', 'retry', 'cli', ... */
	mode?: WorkflowExecuteMode;
	nodes: INode[];
	connections: IConnections;
	staticData?: IDataObject;
}

let executionCounter = 0;
let workflowCounter = 0;

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
		id: spec.workflowId ?? `harness-workflow-${++workflowCounter}`,
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
	retryOf?: string,
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
		variables: { ...(options.variables ?? {}) },
		logAiEvent: () => {},
		setExecutionStatus: () => {},
		externalSecretsProxy: new ExternalSecretsProxy(),
		workflowSettings: workflow.settings,
		hooks: new ExecutionLifecycleHooks(mode, executionId, workflowData, retryOf),
	};
}

/**
 * Runs the workflow from its Manual Trigger with n8n-core's WorkflowExecute, mode 'manual'
 * unless the spec says otherwise. `spec.staticData` is the object the Workflow wraps, so nodes'
 * writes land in it; the product would not save them in manual mode (hookFunctionsSave).
 */
export async function runWorkflow(spec: WorkflowSpec): Promise<IRun> {
	return await startWorkflow(spec);
}

/**
 * Starts the run and gives n8n's cancellable promise: `cancel()` is what the editor's Stop does
 * (n8n-core aborts the execution's signal, which the node's requests and waits observe).
 */
export function startWorkflow(spec: WorkflowSpec): ReturnType<WorkflowExecute['run']> {
	installDeduplication();
	const mode = spec.mode ?? 'manual';
	const workflow = buildWorkflow(spec);
	const additionalData = buildAdditionalData(workflow, spec, mode);
	const startNode = Object.values(workflow.nodes).find((n) => n.type === MANUAL_TRIGGER);
	if (!startNode) throw new Error('harness: the workflow needs a Manual Trigger');
	return new WorkflowExecute(additionalData, mode).run({ workflow, startNode });
}

/**
 * The editor's Execute step on `destination`: n8n's partial execution
 * (WorkflowExecute.runPartialWorkflow2), which keeps the run data of an earlier run and runs the
 * nodes the user changed (`dirty`), and those after them, on the way to `destination`. The run's
 * start data names `destination`, as in the product.
 */
export async function executeStep(
	spec: WorkflowSpec,
	destination: string,
	earlier: IRun,
	dirty: string[],
): Promise<IRun> {
	installDeduplication();
	const workflow = buildWorkflow(spec);
	const additionalData = buildAdditionalData(workflow, spec, 'manual');
	const { runData } = structuredClone(earlier.data.resultData);
	return await new WorkflowExecute(additionalData, 'manual').runPartialWorkflow2(
		workflow,
		runData,
		{},
		dirty,
		{ nodeName: destination, mode: 'inclusive' },
	);
}

/**
 * n8n's Retry of a failed execution (its executions service, `retry`): a new execution in mode
 * 'retry' on the stored run data of the failed one, its error removed and the failed node's last
 * run taken off, so that the failed node runs again with its stored input and the nodes before it
 * keep their results, execution context and custom data included. `spec` is the workflow as saved
 * now ("with currently saved workflow") or as it was.
 */
export async function retryRun(failed: IRun, spec: WorkflowSpec): Promise<IRun> {
	installDeduplication();
	const data = structuredClone(failed.data);
	const { lastNodeExecuted } = data.resultData;
	delete data.resultData.error;
	const tasks = lastNodeExecuted ? data.resultData.runData[lastNodeExecuted] : undefined;
	if (tasks?.length && tasks[tasks.length - 1].error !== undefined) tasks.pop();
	const workflow = buildWorkflow(spec);
	const additionalData = buildAdditionalData(workflow, spec, 'retry', 'harness-retried');
	return await new WorkflowExecute(additionalData, 'retry', data).processRunExecutionData(workflow);
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
