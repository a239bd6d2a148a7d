import { isFinal, outcomeOf, STATUSES } from '../../nodes/shared/domain/status';

describe('status semantics', () => {
	it('lists the 8 codes in the order of the interface', () => {
		expect(STATUSES).toEqual([
			'ENROUTE',
			'DELIVRD',
			'EXPIRED',
			'DELETED',
			'UNDELIV',
			'ACCEPTD',
			'UNKNOWN',
			'REJECTD',
		]);
	});

	it.each([
		['ENROUTE', 'pending', false],
		['DELIVRD', 'delivered', true],
		['ACCEPTD', 'delivered', true],
		['EXPIRED', 'failed', true],
		['DELETED', 'failed', true],
		['UNDELIV', 'failed', true],
		['REJECTD', 'failed', true],
		['UNKNOWN', 'failed', true],
		// Not in the interface: keep watching rather than stop early.
		['QUEUED', 'pending', false],
		['', 'pending', false],
		// Tolerated spelling differences.
		[' delivrd ', 'delivered', true],
	])('%s → %s (final: %s)', (status, outcome, final) => {
		expect(outcomeOf(status)).toBe(outcome);
		expect(isFinal(status)).toBe(final);
	});
});
