import {
	resolveValidity,
	ValidityError,
	type ValidityChoice,
} from '../../nodes/shared/domain/validity';

const NOW = new Date('2026-06-01T10:00:00Z');

describe('resolveValidity', () => {
	it.each<
		[string, ValidityChoice, string, { validity_period: string; valid_until: string } | undefined]
	>([
		['service default: nothing sent', { kind: 'serviceDefault' }, 'UTC', undefined],
		[
			'24 hours from now, service in UTC',
			{ kind: 'duration', hours: 24 },
			'UTC',
			{ validity_period: '260602100000', valid_until: '2026-06-02T10:00:00.000+00:00' },
		],
		[
			'1.5 hours, service in New York',
			{ kind: 'duration', hours: 1.5 },
			'America/New_York',
			{ validity_period: '260601073000', valid_until: '2026-06-01T07:30:00.000-04:00' },
		],
		[
			'a date without offset is read in the workflow zone',
			{ kind: 'until', value: '2026-06-01T13:00', inputTimeZone: 'Europe/Berlin' },
			'UTC',
			{ validity_period: '260601110000', valid_until: '2026-06-01T11:00:00.000+00:00' },
		],
		[
			'a date with an offset is absolute',
			{ kind: 'until', value: '2026-06-03T00:00:00+02:00', inputTimeZone: 'America/New_York' },
			'Europe/Berlin',
			{ validity_period: '260603000000', valid_until: '2026-06-03T00:00:00.000+02:00' },
		],
		[
			'a date alone is midnight in the workflow zone',
			{ kind: 'until', value: '2026-06-02', inputTimeZone: 'UTC' },
			'UTC',
			{ validity_period: '260602000000', valid_until: '2026-06-02T00:00:00.000+00:00' },
		],
	])('%s', (_, choice, serviceZone, expected) => {
		expect(resolveValidity(choice, NOW, serviceZone)).toEqual(expected);
	});

	it.each<[string, ValidityChoice, RegExp]>([
		[
			'a time in the past',
			{ kind: 'until', value: '2026-06-01T09:59:59Z', inputTimeZone: 'UTC' },
			/ends in the past/,
		],
		[
			'now itself',
			{ kind: 'until', value: '2026-06-01T10:00:00Z', inputTimeZone: 'UTC' },
			/ends in the past/,
		],
		['zero hours', { kind: 'duration', hours: 0 }, /positive number of hours \(got 0\)/],
		[
			'not a date',
			{ kind: 'until', value: 'next tuesday', inputTimeZone: 'UTC' },
			/"next tuesday" is not a date and time/,
		],
		['empty', { kind: 'until', value: '', inputTimeZone: 'UTC' }, /is not a date and time/],
	])('refuses %s', (_, choice, message) => {
		expect(() => resolveValidity(choice, NOW, 'UTC')).toThrow(ValidityError);
		expect(() => resolveValidity(choice, NOW, 'UTC')).toThrow(message);
	});
});
