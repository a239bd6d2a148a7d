/**
 * The fault campaigns the project runs itself (npm run soak; a short version in npm test):
 * send campaigns per item and chunked, with and without Continue On Fail, a tracking campaign
 * by polling and one by status callbacks, all seeded, against the sandbox through n8n-core's
 * engine.
 */
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { ANSWER_FAULTS, startFaultProxy, type FaultProxy } from './faultProxy';
import { runSendCampaign, type SendShape, type SendTally } from './sendCampaign';
import { runCallbackCampaign, type CallbackCampaign, type CallbackTally } from './callbackCampaign';
import { runTriggerCampaign, type TriggerTally } from './triggerCampaign';

export interface SoakSize {
	/** Destinations of each of the four send campaigns. */
	destinationsPerCampaign: number;
	triggerBatches: readonly number[];
	triggerPolls: number;
	callbacks: Omit<CallbackCampaign, 'seed'>;
	seed: number;
}

export const FULL: SoakSize = {
	destinationsPerCampaign: 2500,
	triggerBatches: [5000, 800, 400, 200, 100, 50, 20, 10],
	triggerPolls: 320,
	callbacks: { messages: 3000, batches: 30, restarts: 4, memorySize: 2000 },
	seed: 20261123,
};

export const SHORT: SoakSize = {
	destinationsPerCampaign: 200,
	triggerBatches: [300, 40, 10],
	triggerPolls: 60,
	callbacks: { messages: 300, batches: 6, restarts: 1, memorySize: 200 },
	seed: 7,
};

export interface SendRun extends SendTally {
	shape: SendShape;
	continueOnFail: boolean;
}

export interface SoakResult {
	sends: SendRun[];
	trigger: TriggerTally;
	callbacks: CallbackTally;
	faults: Record<string, number>;
}

/** The sandbox's own faults: ~12% of requests, before and after the service did the work. */
const SANDBOX_FAULTS = {
	error500Rate: 0.03,
	error503Rate: 0.03,
	error429Rate: 0.02,
	dropBeforeRate: 0.02,
	dropAfterRate: 0.02,
	// Retry-After 0 keeps the campaign short; the wait itself is tested in the send tests.
	retryAfterSeconds: 0,
	latencyMs: 1,
};

/** What the proxy adds on sends: a 500 after the work, a drop, garbage, cut and slow answers. */
const SEND_PROXY_FAULTS = ANSWER_FAULTS.filter((fault) => !['omit', 'reorder'].includes(fault));

export async function runSoak(size: SoakSize): Promise<SoakResult> {
	const sends: SendRun[] = [];
	const faults: Record<string, number> = {};
	const shapes: Array<[SendShape, boolean]> = [
		['per item', true],
		['per item', false],
		['chunked', true],
		['chunked', false],
	];
	let first = 447700000000;
	for (const [index, [shape, continueOnFail]] of shapes.entries()) {
		const destinations = Array.from({ length: size.destinationsPerCampaign }, () =>
			String(first++),
		);
		const tally = await withSandbox(size.seed + index, async (sandbox, proxy) => {
			sandbox.setFaults({ ...SANDBOX_FAULTS, seed: size.seed + index });
			proxy.setFaults(0.03, SEND_PROXY_FAULTS);
			const result = await runSendCampaign(sandbox, {
				shape,
				continueOnFail,
				destinations,
				baseUrl: proxy.baseUrl,
				// Without Continue On Fail each failure ends a run: fewer, larger items keep it short.
				destinationsPerItem: continueOnFail ? 1 : 10,
				maxRounds: 400,
			});
			addCounts(faults, proxy.counts());
			return result;
		});
		sends.push({ shape, continueOnFail, ...tally });
	}
	const trigger = await withSandbox(size.seed, async (sandbox, proxy) => {
		const result = await runTriggerCampaign(sandbox, proxy, {
			batchSizes: size.triggerBatches,
			polls: size.triggerPolls,
			faultShare: 0.3,
			seed: size.seed,
		});
		addCounts(faults, proxy.counts());
		return result;
	});
	const callbacks = await runCallbackCampaign({ ...size.callbacks, seed: size.seed });
	return { sends, trigger, callbacks, faults };
}

async function withSandbox<T>(
	seed: number,
	work: (sandbox: Sandbox, proxy: FaultProxy) => Promise<T>,
): Promise<T> {
	const sandbox = await startSandbox({
		timeScale: 0,
		accounts: [{ username: 'demo', password: 'demo-password', credits: 10_000_000 }],
	});
	try {
		const proxy = await startFaultProxy(sandbox.baseUrl, seed);
		try {
			return await work(sandbox, proxy);
		} finally {
			await proxy.stop();
		}
	} finally {
		await sandbox.stop();
	}
}

function addCounts(total: Record<string, number>, more: Record<string, number>): void {
	for (const [kind, count] of Object.entries(more)) total[kind] = (total[kind] ?? 0) + count;
}

/** The line the issue asks for, last in `npm run soak`. */
export function summaryLine({ sends, trigger, callbacks }: SoakResult): string {
	const sum = (pick: (run: SendRun) => number) =>
		sends.reduce((total, run) => total + pick(run), 0);
	return (
		`soak: ${sum((run) => run.destinations)} destinations, ${sum((run) => run.acceptedTwice)} accepted twice, ${sum((run) => run.lost)} lost; ` +
		`trigger: ${trigger.polls} polls, ${trigger.duplicates} duplicates, ${trigger.missed} missed; ` +
		`callbacks: ${callbacks.reports} reports called back to a memory of ${callbacks.memorySize}, ${callbacks.echoed} again at the end, ${callbacks.twice} emitted twice, ${callbacks.missed} missed, ${callbacks.lateEmitted} late emitted`
	);
}
