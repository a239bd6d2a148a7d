/**
 * Runs a polling trigger's poll() through n8n-core's PollContext and PollTriggerExecutor, with
 * static data kept and saved the way n8n 2.41.1 keeps and saves it.
 *
 * Static data (read in n8n's source): `Workflow` wraps it in an ObservableObject that marks
 * `__dataChanged` on a write. The active workflow keeps one in-memory Workflow across polls;
 * only `__emit` (a poll that returned items) saves static data to the database, and only if it
 * changed. A null result saves nothing; a throw goes to `__emitError` (a failed execution) and
 * saves nothing, but its in-memory writes stay for the next poll and reach the database at the
 * next emit. After the activation poll, n8n saves the static data whatever it returned. A
 * manual "fetch test event" runs on a fresh Workflow and never saves.
 */
import { PollContext, PollTriggerExecutor, Tracing, TriggersAndPollers } from 'n8n-core';
import { deepCopy } from 'n8n-workflow';
import type { IDataObject, INode, INodeExecutionData } from 'n8n-workflow';

import { buildAdditionalData, buildWorkflow, type EngineOptions } from './workflow';

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
