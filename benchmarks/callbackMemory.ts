/**
 * The Status Trigger's memory at its default size (100,000 reports, 1.6 MB) and at the largest
 * it allows (1,000,000): what a callback costs the trigger (TriggerMemory.receive: the look-up of
 * its reports against the stored memory, and the memory written back with them), beside what n8n
 * itself does with the same static data on every callback and execution (JSON.parse when it loads
 * the workflow, and JSON.stringify when it saves it). The look-up of a callback of 1,000 reports
 * builds an index.
 */
import {
	DEFAULT_MEMORY_SIZE,
	MAX_MEMORY_SIZE,
	MEMORY_KEY,
	reportId,
	TriggerMemory,
} from '../nodes/BulkSmsStatusTrigger/memory';
import { inRounds, QUICK_ROUNDS, type Figure } from './figures';

const NOW = Date.UTC(2026, 10, 20, 10);

function report(i: number, status = 'DELIVRD') {
	return {
		batch_id: '9007199254740993',
		gateway_session_id: String(18014398509481985n + BigInt(i)),
		msisdn: String(447700000000 + i),
		status,
	};
}

/** A full memory: `size` final reports, learned over the last week, as n8n stores it. */
function fullMemory(size: number): string {
	const memory = new TriggerMemory();
	const hourMs = 3_600_000;
	const week = NOW - 7 * 24 * hourMs;
	for (let i = 0; i < size; i++)
		memory.keep(
			[reportId(report(i))],
			{},
			size,
			() => week + Math.floor((i * 168) / size) * hourMs,
		);
	return memory.merged('', NOW, size);
}

export async function figures(): Promise<Figure[]> {
	const result: Figure[] = [];
	for (const size of [DEFAULT_MEMORY_SIZE, MAX_MEMORY_SIZE]) {
		const stored = fullMemory(size);
		const staticData = JSON.stringify({ 'node:Bulk SMS Status Trigger': { [MEMORY_KEY]: stored } });
		for (const reports of [1, 1000]) {
			const callback = Array.from({ length: reports }, (_, i) => report(size + i));
			const timed = await inRounds(
				{
					trigger: () => {
						// Nothing wanted: the news is stored at once; the memory as n8n's save writes it.
						const node: Record<string, unknown> = { [MEMORY_KEY]: stored };
						new TriggerMemory().receive(callback, node, {
							wanted: () => false,
							size,
							clock: () => NOW,
						});
						(node[MEMORY_KEY] as { toJSON(): string }).toJSON(); // what n8n's save calls
					},
					n8n: () => {
						JSON.stringify(JSON.parse(staticData));
					},
				},
				QUICK_ROUNDS,
			);
			result.push({
				scenario: `status_memory_${size}_callback_${reports}`,
				label: `Status Trigger memory of ${size.toLocaleString('en-US')}, a callback of ${reports.toLocaleString('en-US')}: look-up and write vs n8n's parse and save`,
				measured: timed.trigger.figures,
				baseline: timed.n8n.figures,
				extra: { stored_bytes: stored.length },
			});
		}
	}
	return result;
}
