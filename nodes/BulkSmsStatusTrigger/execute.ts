/**
 * The trigger's step in the execution a callback started, run first, wherever n8n runs it: it
 * remembers every report the callbacks brought (their news, wanted or not) and outputs those the
 * filters want. Nothing here can fail on a report: webhook() read and shaped each one before the
 * callback was answered.
 *
 * In the process that received the callbacks (n8n in regular mode), webhook() already told the
 * news from repeats, copies included, and which news the filters want (gathering.ts). In queue
 * mode a worker runs the execution, and copies of one callback received by two processes at once
 * (main and a webhook process) start two executions: those claim their reports in n8n's
 * deduplication store, and only the first emits (claims.ts).
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { DeliveryReport } from '../shared/domain/reports';
import { DeduplicationStore, type StoreQueue } from '../shared/deduplicationStore';
import { claimFirst, CLAIMED_REPORTS } from './claims';
import type { Gathering } from './gathering';
import { reportId, type TriggerMemory } from './memory';
import { memorySize, reportFilter } from './parameters';

/** What the step uses of what this process keeps of the trigger (BulkSmsStatusTrigger.node.ts). */
export interface ExecutionSide {
	memory: TriggerMemory;
	gathering: Gathering;
	storeQueue: StoreQueue;
}

export async function emitCallbacks(
	this: IExecuteFunctions,
	trigger: ExecutionSide,
): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const ids = items.map((item) => reportId(item.json as unknown as DeliveryReport));
	const emit =
		trigger.gathering.wantedOf(items.map((item) => item.json)) ??
		(await decidedHere.call(this, trigger.storeQueue, items, ids));
	trigger.memory.keep(ids, this.getWorkflowStaticData('node'), memorySize(this));
	const output: INodeExecutionData[] = [];
	items.forEach((item, index) => {
		if (emit[index]) output.push({ json: item.json, pairedItem: { item: index } });
	});
	return [output];
}

/**
 * Which reports to emit when another process received the callbacks (queue mode): those the
 * filters want that this execution is the first to have.
 */
async function decidedHere(
	this: IExecuteFunctions,
	storeQueue: StoreQueue,
	items: INodeExecutionData[],
	ids: readonly string[],
): Promise<boolean[]> {
	const wanted = reportFilter(this);
	const first = await firstHere.call(this, storeQueue, ids);
	return items.map((item, index) => first[index] && wanted(item.json as unknown as DeliveryReport));
}

/**
 * Which reports this execution is the first to have, among executions that other processes
 * started: their claims in n8n's deduplication store decide. If the store cannot be used, every
 * report is emitted: a double is better than a loss. The editor's tests record nothing there: a
 * report tried out is news in production.
 */
async function firstHere(
	this: IExecuteFunctions,
	storeQueue: StoreQueue,
	ids: readonly string[],
): Promise<boolean[]> {
	if (!DeduplicationStore.offered(this) || this.getMode() === 'manual') return ids.map(() => true);
	const store = new DeduplicationStore(this, 'node', 2 * CLAIMED_REPORTS, storeQueue);
	try {
		return await claimFirst(
			async (entries) => await store.queued(() => store.record(entries)),
			ids,
		);
	} catch (error) {
		this.logger.warn(
			`Bulk SMS Status Trigger could not use n8n's deduplication store, so it emits without it: ${(error as Error).message}`,
		);
		return ids.map(() => true);
	}
}
