/**
 * Whatever breaks a campaign, and however the user recovers it, nobody gets the message twice and
 * nobody is left out unnamed: generated campaigns, faults at any request, with and without
 * Continue On Fail, in the editor or in production, recovered by Retries and, in the editor, by
 * running again, through n8n's engine against the sandbox on 127.0.0.1.
 */
import fc from 'fast-check';
import type { INode, WorkflowExecuteMode } from 'n8n-workflow';

import { errorOf, outputOf, retryRun, runWorkflow } from '../engine/harness';
import { startSandbox, type FaultKind, type QueuedFault, type Sandbox } from '../../sandbox/server';
import { credentialsFor, items, line, send, trigger } from './workflow';

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({ timeScale: 0 });
});
afterAll(async () => {
	await sandbox.stop();
});

let campaigns = 0;

/** How the user goes on after the run that met the fault: a Retry of it, or a run from the editor. */
type Recovery = 'retry' | 'editor';
const recoveries = fc.array(fc.constantFrom<Recovery>('retry', 'editor'), {
	minLength: 1,
	maxLength: 3,
});

test('nobody twice, nobody left out but the numbers named as in doubt', async () => {
	await fc.assert(
		fc.asyncProperty(
			fc.integer({ min: 3, max: 24 }),
			fc.integer({ min: 1, max: 24 }),
			fc.constantFrom<FaultKind>('error500', 'dropAfter', 'dropBefore'),
			fc.boolean(),
			fc.constantFrom<WorkflowExecuteMode>('manual', 'trigger'),
			recoveries,
			async (count, at, fault, continueOnFail, firstMode, then) => {
				const workflowId = `property-${++campaigns}`;
				const prefix = `44771${String(campaigns).padStart(3, '0')}`;
				const rows = Array.from({ length: count }, (_, i) => ({
					name: `Contact ${i}`,
					phone: `${prefix}${String(i).padStart(4, '0')}`,
				}));
				const extra: Partial<INode> = continueOnFail ? { onError: 'continueRegularOutput' } : {};
				const spec = {
					...line(
						trigger(),
						items(rows),
						send(
							{
								destinations: '={{ $json.phone }}',
								message: '=Hi {{ $json.name }}',
								sendOptions: {},
							},
							extra,
						),
					),
					workflowId,
					credentials: credentialsFor(sandbox),
				};

				sandbox.queueFaults(...Array<QueuedFault>(Math.min(at, count) - 1).fill('none'), fault);
				const first = await runWorkflow({ ...spec, mode: firstMode });
				sandbox.queueFaults(); // a fault never reached stays queued: cleared below
				sandbox.setFaults({});
				let inDoubt: string[] = [];
				for (const recovery of then) {
					// n8n retries a failed execution only; a production run is resumed by nothing else.
					const failed = errorOf(first, 'Send') !== undefined;
					if (recovery === 'retry' && !failed) continue;
					if (recovery === 'editor' && firstMode !== 'manual') continue;
					const result =
						recovery === 'retry'
							? await retryRun(first, spec)
							: await runWorkflow({ ...spec, mode: 'manual' });
					expect(errorOf(result, 'Send')).toBeUndefined();
					inDoubt = outputOf(result, 'Send')
						.filter((item) => /^(in doubt|unknown)$/.test(String(item.json.send_outcome)))
						.map((item) =>
							String((item.json.skipped as Array<{ input: string }>)[0]?.input ?? item.json.msisdn),
						);
				}
				if (inDoubt.length === 0 && errorOf(first, 'Send') === undefined) {
					inDoubt = outputOf(first, 'Send')
						.filter((item) => item.json.send_outcome === 'unknown')
						.map((item) => String((item.json.destinations as string[])[0]));
				}
				const accepted = new Map(
					sandbox.received().destinations.map((d) => [d.msisdn, d.accepted] as const),
				);
				const times = rows.map((row) => accepted.get(row.phone) ?? 0);
				expect(times.filter((t) => t > 1)).toEqual([]);
				// Everyone not reached is named in doubt by the last run, or was never resumed.
				const resumed = then.some((r) =>
					r === 'retry' ? errorOf(first, 'Send') !== undefined : firstMode === 'manual',
				);
				const leftOut = rows.filter((_, i) => times[i] === 0).map((row) => row.phone);
				if (resumed || continueOnFail)
					for (const phone of leftOut) expect(inDoubt).toContain(phone);
				// Only the request that met the fault can be in doubt: the others were answered.
				const faulted = sandbox
					.requests()
					.filter((request) => request.fault && request.form?.destination.startsWith(prefix))
					.map((request) => request.form!.destination);
				for (const phone of inDoubt) expect(faulted).toContain(phone);
			},
		),
		{ numRuns: 25, seed: 24 },
	);
});
