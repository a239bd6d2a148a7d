import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { accountsOfRun, restated } from '../../../shared/transport';
import { accountOfRun, explainRequest } from './accounting';
import type { Plan, SendResults } from './model';
import { heldBackHint, needsAction } from './leftOut';
import { batchItems, destinationRows, failedItem, failedRows } from './output';
import { planSend } from './plan';
import { typedMistake } from './refusals';
import type { SendProcess } from './record';
import { isFailure, sendAll } from './run';

/**
 * One batch per input item, items with the same message together, or all items in one
 * batch; a batch larger than the cap goes out in chunks. Every item is checked before
 * anything is sent, requests go out with bounded concurrency, and the output keeps the
 * input order. A failure says what became of every destination of the run. The second
 * output, Needs Action, has again the items a person must look at.
 */
export async function executeSend(
	this: IExecuteFunctions,
	process: SendProcess,
): Promise<INodeExecutionData[][]> {
	// One credential read per item for the settings and all that item's requests.
	const accountOf = accountsOfRun.call(this);
	const plan = await planSend.call(this, accountOf);
	const { sent } = await sendAll.call(this, plan, accountOf, process);
	if (!this.continueOnFail()) throwFirstFailure(sent);
	if (plan.mistakes.length > 0 && !this.continueOnFail()) {
		const { sentences, items } = accountOfRun(sent);
		throw typedMistake.call(this, plan.mistakes, sentences, items);
	}
	const hint = heldBackHint(sent);
	sayWhatWasHeldBack.call(this, hint);
	const all =
		plan.settings.output === 'destination' ? byDestination(plan, sent) : byBatch(plan, sent);
	return [all, all.filter((item) => needsAction(item.json))];
}

/**
 * Holding back is never silent: the editor's output panel and an execution opened later show it
 * as a hint on Send, and n8n's log has it for runs nobody opens.
 */
function sayWhatWasHeldBack(this: IExecuteFunctions, hint: string | undefined): void {
	if (hint === undefined) return;
	this.addExecutionHints({ message: hint, type: 'warning', location: 'outputPane' });
	if (this.getMode() !== 'manual') {
		const where = `workflow ${this.getWorkflow().id ?? '?'}, execution ${this.getExecutionId()}`;
		this.logger.warn(`Bulk SMS Send "${this.getNode().name}" (${where}): ${hint}`);
	}
}

/**
 * Without Continue On Fail the first failed request, in input order, stops the node, saying
 * what became of that request and of every destination of the run.
 */
function throwFirstFailure(sent: readonly SendResults[]): void {
	for (const { results } of sent) {
		for (const result of results) {
			if (!isFailure(result)) continue;
			const { sentences, items } = accountOfRun(sent);
			const said = [result.failure.description, explainRequest(result), ...sentences];
			const description = said.filter(Boolean).join(' ');
			throw restated(result.failure, { description, context: { items } });
		}
	}
}

function byBatch(plan: Plan, sent: readonly SendResults[]): INodeExecutionData[] {
	const parts = [
		...sent.map((results) => ({ first: results.send.items[0], items: batchItems(results) })),
		...plan.failures.map((failure) => ({ first: failure.items[0], items: [failedItem(failure)] })),
	];
	return parts.sort((a, b) => a.first - b.first).flatMap((part) => part.items);
}

function byDestination(plan: Plan, sent: readonly SendResults[]): INodeExecutionData[] {
	const rows = [...sent.flatMap(destinationRows), ...plan.failures.flatMap(failedRows)];
	// Stable: numbers of one item stay in the order they were given.
	return rows.sort((a, b) => a.item - b.item).map(({ json, pairedItem }) => ({ json, pairedItem }));
}
