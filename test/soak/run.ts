/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	no-console
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * npm run soak: the full fault campaigns, printed as a table, and as the last line exactly
 * `soak: <N> destinations, <a> accepted twice, <l> lost; trigger: <P> polls, <d> duplicates, <m> missed;
 * callbacks: <C> reports called back to a memory of <M>, <E> again at the end, <d> emitted twice,
 * <m> missed, <l> late emitted`.
 * Exits 1 when any of those counts is not zero, or a destination reported not sent had been taken
 * (misreported: the short run in npm test fails on it too).
 */
import { FULL, runSoak, summaryLine, type SoakResult } from './soak';

// Thousands of injected faults would each put a line in n8n's log; the table says what happened.
process.env.N8N_LOG_LEVEL ??= 'silent';

function table(result: SoakResult): string[] {
	const rows = result.sends.map((run) =>
		[
			`send ${run.shape}${run.continueOnFail ? ', continue on fail' : ''}`.padEnd(34),
			run.destinations,
			run.rounds,
			run.batches,
			run.accepted,
			run.unknown,
			run.notSent,
			run.acceptedTwice,
			run.lost,
			run.misreported,
		].join('\t'),
	);
	const t = result.trigger;
	const c = result.callbacks;
	return [
		[
			'campaign'.padEnd(34),
			'dests',
			'rounds',
			'batches',
			'accepted',
			'unknown',
			'not sent',
			'twice',
			'lost',
			'misreported',
		].join('\t'),
		...rows,
		'',
		`trigger: ${t.batches} batches, ${t.destinations} destinations, ${t.polls} polls (${t.failedPolls} failed), ${t.restarts} restarts, ${t.overlaps} overlapping pairs`,
		`         ${t.emitted} emitted, ${t.duplicates} duplicates, ${t.missed} missed`,
		`callbacks: ${c.reports} reports called back in ${c.requests} requests (repeats, bursts and retries included), ${c.executions} executions, ${c.restarts} restarts, ${c.givenUp} given up`,
		`           ${c.emitted} emitted, ${c.twice} twice, ${c.missed} missed, ${c.lateEmitted} late emitted`,
		`faults injected by the proxy: ${Object.entries(result.faults)
			.map(([kind, count]) => `${kind} ${count}`)
			.join(', ')} (plus the sandbox's own ~12% on sends)`,
	];
}

async function main(): Promise<void> {
	const started = Date.now();
	const result = await runSoak(FULL);
	for (const row of table(result)) console.log(row);
	console.log(`took ${((Date.now() - started) / 1000).toFixed(0)} s`);
	console.log(summaryLine(result));
	const { sends, trigger, callbacks } = result;
	const sendFailed = sends.some((run) => run.acceptedTwice + run.lost + run.misreported > 0);
	const callbacksFailed =
		callbacks.twice + callbacks.missed + callbacks.lateEmitted + callbacks.givenUp > 0;
	if (sendFailed || trigger.duplicates + trigger.missed > 0 || callbacksFailed)
		process.exitCode = 1;
}

void main();
