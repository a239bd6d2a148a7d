/**
 * The trigger's parameters as both its steps read them (webhook() as each callback comes, and its
 * step in the execution): which trigger it is, how many reports it remembers, which reports it
 * emits. A webhook's getNodeParameter takes no item index; an execution's takes one.
 */
import type { IExecuteFunctions, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { readBatchIdList } from '../shared/domain/campaign';
import { passes, triggerFilter, type TriggerOn } from '../shared/domain/reportFilter';
import { DEFAULT_MEMORY_SIZE, MAX_MEMORY_SIZE, type ReportKey } from './memory';

type Context = IWebhookFunctions | IExecuteFunctions | IHookFunctions;

function parameter(context: Context, name: string, fallback: unknown): unknown {
	return 'getInputData' in context
		? context.getNodeParameter(name, 0, fallback)
		: context.getNodeParameter(name, fallback);
}

/**
 * One trigger: a workflow and its node (a workflow may hold two Status Triggers), apart in the
 * editor's tests ("Test this trigger"), whose callbacks must not pass for production ones.
 */
export function triggerOf(context: Context): string {
	return `${context.getMode()} ${context.getWorkflow().id ?? ''} ${context.getNode().id}`;
}

/** The Memory Size option, bounded as the option is. */
export function memorySize(context: Context): number {
	const size = Math.floor(parameter(context, 'options.memorySize', DEFAULT_MEMORY_SIZE) as number);
	return Math.min(MAX_MEMORY_SIZE, Math.max(1, size || DEFAULT_MEMORY_SIZE));
}

/** Which reports are emitted: those of Batch IDs that pass Trigger On and Only Statuses. */
export function reportFilter(context: Context): (report: ReportKey) => boolean {
	const batches = batchFilter(context);
	const on = parameter(context, 'emit', 'final') as TriggerOn;
	const filter = triggerFilter(on, parameter(context, 'options.statuses', []) as string[]);
	// report.batch_id is already in the service's form (read by readDeliveryReport).
	return (report) => (!batches || batches.has(report.batch_id)) && passes(filter, report.status);
}

/** The batch ids to keep, in the service's form; undefined keeps every batch. */
function batchFilter(context: Context): Set<string> | undefined {
	const read = readBatchIdList(parameter(context, 'batchIds', ''));
	if ('problem' in read) {
		throw new NodeOperationError(context.getNode(), `Batch IDs: ${read.problem}`, {
			description: read.hint,
		});
	}
	return read.batchIds.length > 0 ? new Set(read.batchIds) : undefined;
}
