/* eslint-disable
	@n8n/community-nodes/no-restricted-globals
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * The Bulk SMS Status Trigger beside n8n's own Webhook node, in a real `n8n start` (the packed
 * package installed as users install it): examples/status-callbacks.json (the trigger, then a No
 * Op) and a Webhook node (POST, answering on receipt, then a No Op), both active, the same
 * callback bodies posted to each, 20 in flight. A leg posts a round's bodies to one workflow
 * and ends when every execution they started has finished, so that no leg leaves work behind for
 * the next; rate = callbacks / that time. Every body is a new report (no repeat the trigger could
 * answer without an execution): the Webhook node gets exactly the same bodies.
 * BULKSMS_BENCH_TARBALL=<file.tgz> measures a package packed elsewhere (an earlier commit, for
 * before and after figures) instead of this checkout.
 */
import { callbackUrl, importStatusCallbacks } from '../scripts/n8n/callbacks';
import { packRepo } from '../scripts/n8n/package';
import { N8nInstance } from '../scripts/n8n/instance';
import { sleep } from '../scripts/n8n/processes';
import type { JsonObject } from '../scripts/n8n/runData';
import type { N8nServer } from '../scripts/n8n/server';
import { credential, workflowId } from '../scripts/n8n/workflows';
import { inRounds, type Figure } from './figures';

const IN_FLIGHT = 20;
/** Callbacks per leg (BENCH_CALLBACKS to change it). */
const PER_LEG = Number(process.env.BENCH_CALLBACKS) || 300;

interface Receiver {
	workflowId: string;
	url: string;
	/** Callbacks posted and executions finished so far (all legs). */
	callbacks: number;
	executions: number;
	legs: number;
}

export async function figures(): Promise<Figure[]> {
	const n8n = await N8nInstance.create();
	try {
		n8n.installPackage(process.env.BULKSMS_BENCH_TARBALL || packRepo({ quiet: true }));
		// The trigger never calls the service: a Base URL nothing listens at, as in the e2e.
		await n8n.importCredential(
			credential({ baseUrl: 'http://127.0.0.1:9', username: 'bench', password: 'bench' }),
		);
		await n8n.importWorkflow(webhookWorkflow());
		// Both workflows keep every execution, as the Webhook's does by default: the ratio is the
		// trigger's own cost, and its executions can be counted (the example keeps failed ones only).
		const callbacks = await importStatusCallbacks(n8n, { keepEveryExecution: true });
		const server = await n8n.startServerAsOwner();
		const webhook = await activate(server, WEBHOOK_WORKFLOW, `${server.baseUrl}/webhook/bench`);
		const trigger = await activate(
			server,
			workflowId(callbacks.workflow),
			callbackUrl(server, callbacks),
		);
		// The n-th leg of each workflow posts the same bodies: callbackBodies(n).
		const timed = await inRounds({
			webhook: () => leg(server, webhook),
			trigger: () => leg(server, trigger),
		});
		return [
			{
				scenario: 'callbacks_vs_webhook',
				label: `Status Trigger vs Webhook node, callbacks/s, ${IN_FLIGHT} in flight`,
				unit: '/s',
				measured: timed.trigger.figures,
				baseline: timed.webhook.figures,
				extra: { callbacks_per_execution: trigger.callbacks / trigger.executions },
			},
		];
	} finally {
		await n8n.stop();
	}
}

async function activate(server: N8nServer, id: string, url: string): Promise<Receiver> {
	await server.activateWorkflow(id);
	await server.waitForWebhook(url);
	return { workflowId: id, url, callbacks: 0, executions: 0, legs: 0 };
}

/** Posts every body, IN_FLIGHT at a time, then waits for their executions; returns callbacks/s. */
async function leg(server: N8nServer, receiver: Receiver): Promise<number> {
	const bodies = callbackBodies(receiver.legs++);
	const start = performance.now();
	let next = 0;
	const poster = async () => {
		while (next < bodies.length) {
			const body = bodies[next++];
			const res = await fetch(receiver.url, {
				method: 'POST',
				headers: { 'Content-Type': 'application/json' },
				body,
			});
			await res.arrayBuffer();
			if (!res.ok) throw new Error(`bench: ${receiver.workflowId} answered ${res.status}`);
		}
	};
	await Promise.all(Array.from({ length: IN_FLIGHT }, poster));
	receiver.callbacks += bodies.length;
	receiver.executions = await finished(server, receiver);
	return bodies.length / ((performance.now() - start) / 1000);
}

/**
 * Waits until no execution of the workflow is left to finish (each was created before its
 * callback was answered); returns how many have finished so far.
 */
async function finished(server: N8nServer, receiver: Receiver): Promise<number> {
	const count = async (status: string[]) => {
		const filter = encodeURIComponent(JSON.stringify({ workflowId: receiver.workflowId, status }));
		const list = await server.request<{ data: { count: number } }>(
			'GET',
			`/rest/executions?filter=${filter}&limit=1`,
		);
		return list.data.count;
	};
	for (const deadline = Date.now() + 600_000; Date.now() < deadline; ) {
		if ((await count(['new', 'running'])) === 0) return await count(['success']);
		await sleep(50);
	}
	throw new Error(`bench: ${receiver.workflowId}'s executions did not finish`);
}

/** One new final report per callback, as the sandbox sends it (get_status's JSON). */
function callbackBodies(round: number): string[] {
	return Array.from({ length: PER_LEG }, (_, i) => {
		const session = 18014398509481985n + BigInt(round * 100_000 + i);
		const msisdn = `4477009${String(i).padStart(5, '0')}`;
		return `{"reports":[{"batch_id":9007199254740993,"network_id":23410,"status":"DELIVRD","msisdn":"${msisdn}","gateway_session_id":${session},"delivery_date":"2026-01-15 10:00:05.0"}]}`;
	});
}

const WEBHOOK_WORKFLOW = 'benchWebhook';

function webhookWorkflow(): JsonObject {
	return {
		id: WEBHOOK_WORKFLOW,
		name: 'Bench: n8n Webhook node',
		nodes: [
			{
				id: 'b7e3c521-a9d4-4f68-8e21-5d4c3b2a1f90',
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: '0b7e3c52-1a9d-4f68-8e21-5d4c3b2a1f90',
				parameters: { httpMethod: 'POST', path: 'bench', responseMode: 'onReceived', options: {} },
			},
			{
				id: 'b7e3c521-a9d4-4f68-8e21-5d4c3b2a1f91',
				name: 'No Op',
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [240, 0],
				parameters: {},
			},
		],
		connections: { Webhook: { main: [[{ node: 'No Op', type: 'main', index: 0 }]] } },
		active: false,
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}
