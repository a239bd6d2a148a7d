/**
 * What n8n says about a run, read once for the rule of campaign.ts: its mode, its execution
 * context, the campaign its custom data names for a Retry, and, for a run from the editor, the
 * node the user ran it up to.
 *
 * n8n's node interface tells a node a manual run's mode (`getMode()`) and start
 * (`getExecutionContext()`), but not what the user asked to run: the node the editor runs the
 * workflow up to is in the run's start data (`startData.destinationNode`, in n8n 1.x a node name,
 * in 2.x `{ nodeName, mode }`), which n8n holds on the execution context it calls the node with.
 * It is read from there, shape checked; an n8n without it gives none, and every manual run then
 * counts as asked for.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import type { RunStart } from './campaign';

/** The execution's custom data key that names a run's campaign for its Retries. */
export function customDataKey(context: IExecuteFunctions): string {
	return `bulk_sms_${context.getNode().id.replace(/\W/g, '_')}`.slice(0, 50);
}

export function runStartOf(context: IExecuteFunctions): RunStart {
	let retried: unknown;
	try {
		retried = context.getWorkflowDataProxy(0).$execution?.customData?.get(customDataKey(context));
	} catch {
		// No custom data here (a context that has none): no campaign was named.
	}
	return {
		mode: context.getMode(),
		context: context.getExecutionContext?.(),
		retried: typeof retried === 'string' ? retried : undefined,
	};
}

/**
 * The later step n8n runs Send on the way to, in a run from the editor (Execute step on a node
 * after Send); undefined when the user ran the workflow or Send itself.
 */
export function laterStepOf(context: IExecuteFunctions): string | undefined {
	if (context.getMode() !== 'manual') return undefined;
	const destination = destinationOf(context);
	return destination !== undefined && destination !== context.getNode().name
		? destination
		: undefined;
}

interface WithStartData {
	runExecutionData?: { startData?: { destinationNode?: unknown } };
}

function destinationOf(context: IExecuteFunctions): string | undefined {
	const given = (context as unknown as WithStartData).runExecutionData?.startData?.destinationNode;
	if (typeof given === 'string') return given;
	if (typeof given === 'object' && given !== null && 'nodeName' in given) {
		const { nodeName } = given as { nodeName: unknown };
		return typeof nodeName === 'string' ? nodeName : undefined;
	}
	return undefined;
}
