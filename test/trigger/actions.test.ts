/**
 * Every entry the node creator lists for the Bulk SMS Trigger works as it reads: a node added
 * from the action, as the editor adds it (test/engine/creator.ts), with the batch pasted into
 * Batch IDs, emits what the action's name says once the batch's messages are final.
 */
import { BulkSmsTrigger } from '../../nodes/BulkSmsTrigger/BulkSmsTrigger.node';
import { sendDirect } from '../../sandbox/client';
import type { Sandbox } from '../../sandbox/server';
import { nodeFromAction, triggerActions, valuesNotOffered } from '../engine/creator';
import { BULK_SMS_TRIGGER, pollOnce } from '../engine/harness';
import { FINAL_AFTER_MS, frozenSandbox, NUMBER } from './helpers';

const { description } = new BulkSmsTrigger();

let sb: Sandbox;
beforeEach(async () => (sb = await frozenSandbox()));
afterEach(() => sb.stop());

/** What each action's name promises for a batch of one delivered and one undeliverable message. */
function promised(action: string): string[] {
	if (/^On every status change/.test(action)) return ['DELIVRD', 'UNDELIV'];
	if (/^On final statuses/.test(action)) return ['DELIVRD', 'UNDELIV'];
	if (/^On batch finished/.test(action)) return ['summary of 2'];
	throw new Error(`the test does not know what "${action}" promises`);
}

it('lists the Trigger On choices, each saying it polls', () => {
	expect(triggerActions(description).map((action) => action.name)).toEqual([
		'On every status change (polls batches)',
		'On final statuses (polls batches)',
		'On batch finished (polls batches)',
	]);
});

it.each(triggerActions(description).map((action) => [action.name, action] as const))(
	'a node added from "%s" emits what it says',
	async (name, action) => {
		const batchId = await sendDirect(sb.baseUrl, [NUMBER.delivered(1), NUMBER.undeliverable(1)]);
		const added = nodeFromAction(description, BULK_SMS_TRIGGER, action);
		const node = { ...added, parameters: { ...added.parameters, batchIds: batchId } };
		expect(valuesNotOffered(description, node)).toEqual([]);
		const spec = {
			node,
			credentials: {
				bulkSmsApi: { baseUrl: sb.baseUrl, username: 'demo', password: 'demo-password' },
			},
			staticData: {},
			persisted: {},
		};
		await pollOnce({ ...spec, activation: true });
		sb.advance(FINAL_AFTER_MS);
		const emitted = [];
		for (let poll = 0; poll < 2; poll++) {
			for (const item of (await pollOnce(spec)).result?.[0] ?? []) {
				const { json } = item;
				emitted.push(
					json.total === undefined ? String(json.status) : `summary of ${String(json.total)}`,
				);
			}
		}
		expect(emitted.sort()).toEqual(promised(name));
	},
);
