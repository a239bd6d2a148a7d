/**
 * An interrupted campaign: one personalised SMS per contact, the same workflow run again
 * and again, as a user recovers it, until a run reaches everyone. Between runs the campaign meets
 * the sandbox's and the proxy's faults, the editor's Stop, and crashes (a Stop after which n8n's
 * database takes no more writes, as when n8n dies: nothing is cleaned up). The user goes on by
 * running it from the editor again, or, after a run that failed, by a Retry of it, at random
 * (seeded). Every number is then reconciled against what the sandbox accepted: none twice, and
 * none left out unless the last run names it in doubt.
 */
import { sleep, type INodeExecutionData, type IRun } from 'n8n-workflow';

import { failStoreCalls, outputOf, retryRun, startWorkflow } from '../engine/harness';
import { credentialsFor, items, line, send, trigger } from '../bulkSms/workflow';
import { seededRandom } from '../../sandbox/random';
import type { Sandbox } from '../../sandbox/server';

export interface InterruptedCampaign {
	destinations: readonly string[];
	/** Where the node sends: a fault proxy in front of the sandbox. */
	baseUrl: string;
	seed: number;
	maxRuns: number;
}

export interface InterruptedTally {
	destinations: number;
	runs: number;
	stops: number;
	crashes: number;
	acceptedTwice: number;
	/** Numbers the sandbox never accepted that the last run did not name as in doubt. */
	lost: number;
	inDoubt: number;
}

/** Longer than a request on its way takes through the fault proxy. */
const CRASH_SETTLES_MS = 1_000;

export async function runInterruptedCampaign(
	sandbox: Sandbox,
	campaign: InterruptedCampaign,
): Promise<InterruptedTally> {
	const random = seededRandom(campaign.seed);
	const rows = campaign.destinations.map((phone, i) => ({ phone, name: `Contact ${i}` }));
	const spec = line(
		trigger(),
		items(rows),
		send({
			destinations: '={{ $json.phone }}',
			message: '=Hello {{ $json.name }}',
			sendOptions: {},
		}),
	);
	const workflow = {
		...spec,
		workflowId: `interrupted-${campaign.seed}`,
		credentials: credentialsFor(sandbox, { baseUrl: campaign.baseUrl }),
	};
	const tally = { runs: 0, stops: 0, crashes: 0 };
	let output: INodeExecutionData[] | undefined;
	let failed: IRun | undefined;
	while (tally.runs < campaign.maxRuns) {
		tally.runs++;
		// The first three runs are always cut short; later ones half the time.
		const cut = tally.runs <= 3 ? random() / 2 : random();
		const retry = failed !== undefined && random() < 0.5;
		if (retry && cut >= 0.5) {
			const run = await retryRun(failed!, workflow);
			if (run.data.resultData.error) continue;
			output = outputOf(run, 'Send');
			if (reachedEveryone(output)) break;
			continue;
		}
		const running = startWorkflow({ ...workflow, mode: 'manual' });
		if (cut < 0.5) {
			// Stop (or a crash) once this run has sent a few more messages.
			const crash = cut < 0.2;
			const until = sandbox.received().batches.length + 1 + Math.floor(random() * 20);
			while (sandbox.received().batches.length < until && !(await settledSoon(running)))
				await sleep(2);
			if (crash) failStoreCalls(Number.MAX_SAFE_INTEGER);
			running.cancel();
			await running;
			// After a Stop, the requests on their way finish and are recorded; after a crash nothing
			// is written any more: the database stays out of reach until they have finished.
			if (crash) await sleep(CRASH_SETTLES_MS);
			failStoreCalls(0);
			if (crash) tally.crashes++;
			else tally.stops++;
			continue;
		}
		const run = await running;
		failed = run.data.resultData.error ? run : undefined;
		if (failed) continue;
		output = outputOf(run, 'Send');
		if (reachedEveryone(output)) break;
	}
	return { destinations: rows.length, ...tally, ...reconcile(sandbox, rows, output ?? []) };
}

/** Whether nothing is left to send: every row went out, now or before, or is named in doubt. */
function reachedEveryone(output: readonly INodeExecutionData[]): boolean {
	const done = ['accepted', 'sent before', 'in doubt'];
	return output.every((item) => done.includes(String(item.json.send_outcome)));
}

/** Whether the run ended (its promise settled) within a moment. */
async function settledSoon(running: Promise<unknown>): Promise<boolean> {
	const ended = await Promise.race([running.then(() => true), sleep(1).then(() => false)]);
	return ended;
}

function reconcile(
	sandbox: Sandbox,
	rows: ReadonlyArray<{ phone: string }>,
	lastOutput: readonly INodeExecutionData[],
): Pick<InterruptedTally, 'acceptedTwice' | 'lost' | 'inDoubt'> {
	const taken = new Map(sandbox.received().destinations.map((d) => [d.msisdn, d.accepted]));
	const inDoubt = new Set(
		lastOutput
			.filter((item) => item.json.send_outcome === 'in doubt')
			.flatMap((item) => (item.json.skipped as Array<{ input: string }>).map((e) => e.input)),
	);
	let acceptedTwice = 0;
	let lost = 0;
	for (const { phone } of rows) {
		const times = taken.get(phone) ?? 0;
		if (times > 1) acceptedTwice++;
		if (times === 0 && !inDoubt.has(phone)) lost++;
	}
	return { acceptedTwice, lost, inDoubt: inDoubt.size };
}
