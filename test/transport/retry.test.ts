/**
 * The retry policy on its own (nodes/shared/transport/retry.ts): which answers and failures
 * are tried again, for a send and for a read, and how long each waits.
 */
import { DEFAULT_LIMITS } from '../../nodes/shared/transport/limits';
import { RequestPace } from '../../nodes/shared/transport/pace';
import type { Attempt, AttemptFailure } from '../../nodes/shared/transport/request';
import { withRetries } from '../../nodes/shared/transport/retry';

const answer = (statusCode: number, headers = {}): Attempt => ({
	answer: { statusCode, headers, body: '' },
});
const failure = (f: AttemptFailure): Attempt => ({ failure: f });
const network = (code: string) => failure({ kind: 'network', code });

/** A pace that records each hold instead of waiting. */
class RecordingPace extends RequestPace {
	holds: number[] = [];
	override hold(ms: number): void {
		this.holds.push(ms);
	}
	override async ready(): Promise<void> {}
}

async function attemptsFor(outcome: Attempt, idempotent: boolean) {
	const pace = new RecordingPace();
	let attempts = 0;
	const last = await withRetries(
		async () => {
			attempts++;
			return outcome;
		},
		{ idempotent, pace, limits: DEFAULT_LIMITS },
	);
	expect(last).toBe(outcome);
	return { attempts, holds: pace.holds };
}

describe('what is tried again (3 attempts at most)', () => {
	it.each<[string, Attempt, number, number]>([
		// name, outcome of every attempt, attempts for a send, attempts for a read
		['200', answer(200), 1, 1],
		['400', answer(400), 1, 1],
		['401', answer(401), 1, 1],
		['404', answer(404), 1, 1],
		['429: answered before any work', answer(429, { 'retry-after': '0' }), 3, 3],
		['503: answered before any work', answer(503, { 'retry-after': '0' }), 3, 3],
		['500: a send may have been taken', answer(500), 1, 3],
		['502', answer(502), 1, 3],
		['504', answer(504), 1, 3],
		['501', answer(501), 1, 1],
		['ECONNREFUSED: nothing was written', network('ECONNREFUSED'), 3, 3],
		['ECONNRESET: a send may have been taken', network('ECONNRESET'), 1, 3],
		['ETIMEDOUT', network('ETIMEDOUT'), 1, 3],
		['ENOTFOUND: a wrong address stays wrong', network('ENOTFOUND'), 1, 1],
		['too slow: the next would be too', failure({ kind: 'tooSlow' }), 1, 1],
		['too large: the next would be too', failure({ kind: 'tooLarge', statusCode: 200 }), 1, 1],
	])('%s', async (_name, outcome, forSend, forRead) => {
		expect((await attemptsFor(outcome, false)).attempts).toBe(forSend);
		expect((await attemptsFor(outcome, true)).attempts).toBe(forRead);
	});
});

describe('how long a retry waits', () => {
	it.each<[string, Record<string, string>, number[]]>([
		['Retry-After in seconds', { 'retry-after': '2' }, [2000, 2000]],
		['Retry-After capped at 30 s', { 'retry-after': '3600' }, [30_000, 30_000]],
		['a negative Retry-After as none', { 'retry-after': '-5' }, [0, 0]],
		['without Retry-After, doubling from 0.5 s', {}, [500, 1000]],
		['an unreadable Retry-After, as none', { 'retry-after': 'soon' }, [500, 1000]],
	])('%s', async (_name, headers, holds) => {
		expect((await attemptsFor(answer(429, headers), false)).holds).toEqual(holds);
	});

	it('Retry-After as an HTTP date in the past: at once', async () => {
		const past = new Date(Date.now() - 60_000).toUTCString();
		expect((await attemptsFor(answer(503, { 'retry-after': past }), true)).holds).toEqual([0, 0]);
	});

	it('a network failure of a read backs off, doubling', async () => {
		expect((await attemptsFor(network('ECONNRESET'), true)).holds).toEqual([500, 1000]);
	});
});
