/**
 * The trigger's step in the execution a callback started, run first, wherever n8n runs it: it
 * remembers every report the callbacks brought (their news, wanted or not) and outputs those the
 * filters want. Nothing here can fail on a report: webhook() read and shaped each one before the
 * callback was answered.
 *
 * In the process that received the callbacks (n8n in regular mode), webhook() already told the
 * news from repeats, copies included. In queue mode a worker runs the execution, and copies of one
 * callback received by two processes at once (main and a webhook process) start two executions:
 * those claim their reports in n8n's deduplication store, and only the first emits (claims.ts).
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { DeliveryReport } from '../shared/domain/reports';
import { claimFirst, CLAIMED_REPORTS, type RecordItems } from './claims';
import { MEMORY_KEY, readStored, reportId, type Memories, type TriggerMemory } from './memory';
import { memorySize, reportFilter, triggerOf } from './parameters';

export async function emitCallbacks(
	this: IExecuteFunctions,
	memories: Memories,
): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const memory = memories.of(triggerOf(this));
	const reports = items.map((item) => item.json as unknown as DeliveryReport);
	const ids = reports.map(reportId);
	const receivedHere = items.every((item) => memory.handedOver(item.json));
	const first = receivedHere ? ids.map(() => true) : await firstHere.call(this, memory, ids);
	memory.learn(ids, Date.now());
	const staticData = this.getWorkflowStaticData('node');
	memory.store(staticData, readStored(staticData[MEMORY_KEY]), memorySize(this));
	const wanted = reportFilter(this);
	const output: INodeExecutionData[] = [];
	reports.forEach((report, index) => {
		if (first[index] && wanted(report))
			output.push({ json: report as unknown as IDataObject, pairedItem: { item: index } });
	});
	return [output];
}

/**
 * Which reports this execution is the first to have, among executions that other processes
 * started: their claims in n8n's deduplication store decide. If the store cannot be used, every
 * report is emitted: a double is better than a loss. The editor's tests record nothing there: a
 * report tried out is news in production.
 */
async function firstHere(
	this: IExecuteFunctions,
	memory: TriggerMemory,
	ids: readonly string[],
): Promise<boolean[]> {
	const store = this.helpers.checkProcessedAndRecord;
	if (typeof store !== 'function' || this.getMode() === 'manual') return ids.map(() => true);
	// One record per node, read and written whole with no lock: this process's look-ups take turns.
	// Once more on a failure: two processes creating the record at once, one of them fails.
	const once = (entries: string[]) =>
		store(entries, 'node', { mode: 'entries', maxEntries: 2 * CLAIMED_REPORTS });
	const record: RecordItems = async (entries) => {
		const outcome = await memory.inTurn(() => once(entries).catch(() => once(entries)));
		return new Set(outcome.processed.map(String));
	};
	try {
		return await claimFirst(record, ids);
	} catch (error) {
		this.logger.warn(
			`Bulk SMS Status Trigger could not use n8n's deduplication store, so it emits without it: ${(error as Error).message}`,
		);
		return ids.map(() => true);
	}
}
