/**
 * The trigger's step in the execution a callback started, run first, wherever n8n runs it (the
 * main process, or a worker in queue mode): it takes off what webhook() handed over, lets
 * through only the reports that n8n's deduplication store has not recorded yet, remembers every
 * key the callbacks carried, and outputs the reports, their dates in the credential's zone.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { shapeReport } from '../shared/domain/reports';
import type { RawReport } from '../shared/domain/responses';
import { CREDENTIAL, timeZoneOf } from '../shared/transport';
import { claimFirst, type RecordItems } from './claims';
import { takeHandover, type Handover } from './handover';
import type { KnownReports, TriggerMemory } from './knownReports';
import { DEFAULT_MEMORY, statusKey } from './memory';
import { memoryLimit, MEMORY_KEY, triggerOf } from './parameters';
import { readStored, storeMemory } from './storedMemory';

export async function emitHandedOver(
	this: IExecuteFunctions,
	known: KnownReports,
): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const handovers = items.map(takeHandover);
	if (handovers.some((handover) => handover === undefined)) return [passedOn(items)];
	const handed = handovers as Handover[];
	// Read first: a zone the credential gets wrong fails the execution before anything is recorded.
	const timeZone = await callbackTimeZone.call(this);
	const limit = memoryLimit(this.getNodeParameter('options.memory', 0, DEFAULT_MEMORY));
	const memory = known.of(triggerOf(this), limit);
	const fromElsewhere = handed.some((h) => h.from !== known.process);
	const reports = handed.map((h) => h.report);
	const firstTime = await firstTimeOnly.call(this, memory, reports, limit, fromElsewhere);
	remember.call(this, memory, handed, limit);
	const output: INodeExecutionData[] = [];
	handed.forEach(({ report }, index) => {
		if (!firstTime[index]) return;
		const json = shapeReport(report, timeZone) as unknown as IDataObject;
		output.push({ json, pairedItem: { item: index } });
	});
	return [output];
}

/** Items this version did not hand over itself (pinned data, an older version's execution). */
function passedOn(items: INodeExecutionData[]): INodeExecutionData[] {
	return items.map((item, index) => ({ json: item.json, pairedItem: { item: index } }));
}

/**
 * n8n's deduplication store (one record per node in its database) is the last word on what was
 * emitted: whichever process receives a callback, and whatever static data was lost to a last
 * writer. It reads and writes its record without a lock, so the look-ups of this process take
 * turns, and an execution that another process received (queue mode) claims its reports
 * (claims.ts). If the store cannot be used, the reports are emitted: a double is better than a
 * loss.
 */
async function firstTimeOnly(
	this: IExecuteFunctions,
	memory: TriggerMemory,
	reports: readonly RawReport[],
	limit: number,
	fromElsewhere: boolean,
): Promise<boolean[]> {
	const keys = reports.map(statusKey);
	const store = this.helpers.checkProcessedAndRecord;
	// The editor's tests record nothing there: a report tried out is news in production.
	const testing = this.getMode() === 'manual';
	if (typeof store !== 'function' || keys.length === 0 || testing) return keys.map(() => true);
	// Room for a claim beside each key (claims.ts).
	const once = (items: string[]) =>
		store(items, 'node', { mode: 'entries', maxEntries: 2 * limit });
	// Once more on a failure: two processes creating the record at once, one of them fails.
	const record: RecordItems = async (items) => {
		const outcome = await memory.inTurn(() => once(items).catch(() => once(items)));
		return new Set(outcome.processed.map(String));
	};
	try {
		if (fromElsewhere) return await claimFirst(record, keys);
		const recorded = await record(keys);
		return keys.map((key) => !recorded.has(key));
	} catch (error) {
		this.logger.warn(
			`Bulk SMS Status Trigger could not use n8n's deduplication store, so it emits without it: ${(error as Error).message}`,
		);
		return keys.map(() => true);
	}
}

/**
 * Every key the callbacks carried, into this process's memory and the stored one, which n8n
 * saves when the execution ends (whole, last writer wins: what this process knows is written
 * each time, so that a key another execution's save dropped is written again by the next).
 */
function remember(
	this: IExecuteFunctions,
	memory: TriggerMemory,
	handed: readonly Handover[],
	limit: number,
): void {
	memory.learn(handed.flatMap((h) => h.keys ?? []));
	const staticData = this.getWorkflowStaticData('node');
	const stored = readStored(staticData[MEMORY_KEY]);
	storeMemory(staticData, MEMORY_KEY, stored, memory, limit);
}

/** The credential is optional here: it only gives the zone of delivery dates (UTC without it). */
async function callbackTimeZone(this: IExecuteFunctions): Promise<string> {
	if (!this.getNode().credentials?.[CREDENTIAL]) return 'UTC';
	return timeZoneOf(this.getNode(), await this.getCredentials(CREDENTIAL, 0), 0);
}
