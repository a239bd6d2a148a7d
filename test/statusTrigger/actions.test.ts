/**
 * Every entry the node creator lists for the Status Trigger works as it reads: a node added from
 * the action, as the editor adds it (test/engine/creator.ts), shows no value its version does not
 * offer, and a callback of an ENROUTE then a final status emits what the action's name says.
 */
import { BulkSmsStatusTrigger } from '../../nodes/BulkSmsStatusTrigger/BulkSmsStatusTrigger.node';
import { nodeFromAction, triggerActions, valuesNotOffered } from '../engine/creator';
import { startWebhookServer, type WebhookServer } from '../engine/webhook';
import {
	CALLBACK_SECRET,
	jsonReport,
	newProcess,
	post,
	STATUS_TRIGGER,
	WEBHOOK_ID,
} from './helpers';

const { description } = new BulkSmsStatusTrigger();

let server: WebhookServer | undefined;
afterEach(async () => {
	await server?.stop();
	server = undefined;
});

/** What each action's name promises, for an ENROUTE then a DELIVRD of one message. */
function promised(action: string): string[] {
	if (/^On every status change/.test(action)) return ['ENROUTE', 'DELIVRD'];
	if (/^On final statuses/.test(action)) return ['DELIVRD'];
	return [`(the test does not know what "${action}" promises)`];
}

it('lists the Trigger On choices of the current version, each saying it works by callback URL', () => {
	expect(triggerActions(description).map((action) => action.name)).toEqual([
		'On final statuses (callback URL)',
		'On every status change (callback URL)',
	]);
});

it('gives each action a node that offers its values and emits what the action says', async () => {
	const got: Array<[string, string[], string[]]> = [];
	const wanted: Array<[string, string[], string[]]> = [];
	for (const action of triggerActions(description)) {
		const node = {
			...nodeFromAction(description, STATUS_TRIGGER, action),
			webhookId: WEBHOOK_ID,
		};
		server = await startWebhookServer({
			node,
			nodeTypes: { [STATUS_TRIGGER]: newProcess() },
			credentials: CALLBACK_SECRET,
		});
		for (const status of ['ENROUTE', 'DELIVRD']) await post(server, jsonReport({ status }));
		const emitted = server.executions().flatMap((items) => items.map((item) => item.json.status));
		got.push([action.name, valuesNotOffered(description, node), emitted.map(String)]);
		wanted.push([action.name, [], promised(action.name)]);
		await server.stop();
		server = undefined;
	}
	expect(got).toEqual(wanted);
});
