/**
 * What a poll can learn of the batches a campaign sent, through n8n-core's PollContext: only what
 * its Batch IDs give it. It cannot read a Send node's output, even in its own workflow (a poll
 * runs outside any execution), nor n8n's deduplication store, where Send keeps its record of
 * accepted sends (poll functions have no such helper). These facts are why a personalised
 * campaign is followed by polling in the sending workflow (examples/follow-campaign-by-poll.json).
 */
import { PollContext } from 'n8n-core';
import type { INode } from 'n8n-workflow';

import { BULK_SMS, BULK_SMS_TRIGGER } from '../engine/harness';
import { buildAdditionalData, buildWorkflow } from '../engine/workflow';

const credentials = {
	bulkSmsApi: { baseUrl: 'http://127.0.0.1:9', username: 'demo', password: 'demo' },
};

/** A PollContext of the trigger, in a workflow that also holds a Send node, as n8n makes one. */
function pollContext(batchIds: string): PollContext {
	const trigger: INode = {
		id: 'trigger',
		name: 'Bulk SMS Trigger',
		type: BULK_SMS_TRIGGER,
		typeVersion: 1,
		position: [0, 0],
		parameters: { batchIds, emit: 'final' },
	};
	const send: INode = {
		id: 'send',
		name: 'Send SMS',
		type: BULK_SMS,
		typeVersion: 1,
		position: [0, 200],
		parameters: { operation: 'send' },
	};
	const workflow = buildWorkflow({ nodes: [trigger, send], connections: {}, credentials });
	return new PollContext(
		workflow,
		workflow.getNode(trigger.name) as INode,
		buildAdditionalData(workflow, { credentials }, 'trigger'),
		'trigger',
		'activate',
	);
}

it('cannot read the batch ids a Send node of its own workflow output', () => {
	const context = pollContext("={{ $('Send SMS').all().map((item) => item.json.batch_id) }}");
	expect(() => context.getNodeParameter('batchIds')).toThrow(
		"Node 'Send SMS' hasn't been executed",
	);
});

it("has no helper for n8n's deduplication store, where Send keeps its record", () => {
	const { helpers } = pollContext('9007199254740993');
	expect(
		['checkProcessedAndRecord', 'getProcessedDataCount'].filter((name) => name in helpers),
	).toEqual([]);
});
