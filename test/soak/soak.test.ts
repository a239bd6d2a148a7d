/** The short, seeded version of npm run soak: the same campaigns, smaller. */
import { runSoak, SHORT, summaryLine, type SoakResult } from './soak';

let result: SoakResult;

beforeAll(async () => {
	result = await runSoak(SHORT);
}, 240_000);

it('accepts no destination twice and loses none, in every send campaign', () => {
	// The sends met faults after the service took a batch: some outcomes had to be reported unknown.
	expect(result.sends.reduce((sum, run) => sum + run.unknown, 0)).toBeGreaterThan(0);
	expect(result.sends).toHaveLength(4);
	for (const run of result.sends) {
		expect({
			shape: run.shape,
			continueOnFail: run.continueOnFail,
			twice: run.acceptedTwice,
			lost: run.lost,
			misreported: run.misreported,
		}).toEqual({
			shape: run.shape,
			continueOnFail: run.continueOnFail,
			twice: 0,
			lost: 0,
			misreported: 0,
		});
		expect(run.accepted + run.unknown + run.notSent).toBe(run.destinations);
	}
});

it('emits every final status exactly once through faults, restarts and overlapping polls', () => {
	// The campaign really was hostile: answers left out reports, broke, and n8n restarted.
	expect(result.faults.omit).toBeGreaterThan(0);
	expect(result.trigger.restarts).toBeGreaterThan(0);
	// Final statuses were there to emit: no duplicate and no miss must not mean nothing at all.
	expect(result.trigger.emitted).toBeGreaterThan(0);
	expect({ duplicates: result.trigger.duplicates, missed: result.trigger.missed }).toEqual({
		duplicates: 0,
		missed: 0,
	});
});

it('emits every status change called back exactly once through repeats, bursts, overtaking and a restart', () => {
	const { callbacks } = result;
	// The campaign really was hostile, and there was something to emit and something to leave out.
	expect(callbacks.requests).toBeGreaterThan(callbacks.reports / 3);
	expect(callbacks.restarts).toBe(2); // one during the campaign, one before the echoes
	expect(callbacks.emitted).toBeGreaterThan(0);
	expect(callbacks.emitted).toBeLessThan(callbacks.reports);
	// More reports than the memory holds, and the ones it holds called back again at the end.
	expect(callbacks.reports).toBeGreaterThan(2 * callbacks.memorySize);
	expect(callbacks.echoed).toBeGreaterThan(callbacks.memorySize * 0.8);
	expect({
		twice: callbacks.twice,
		missed: callbacks.missed,
		lateEmitted: callbacks.lateEmitted,
		givenUp: callbacks.givenUp,
	}).toEqual({ twice: 0, missed: 0, lateEmitted: 0, givenUp: 0 });
});

it('ends with the line the soak prints', () => {
	expect(summaryLine(result)).toMatch(
		/^soak: 800 destinations, 0 accepted twice, 0 lost; trigger: \d+ polls, 0 duplicates, 0 missed; callbacks: \d+ reports called back to a memory of 200, \d+ again at the end, 0 emitted twice, 0 missed, 0 late emitted$/,
	);
});
