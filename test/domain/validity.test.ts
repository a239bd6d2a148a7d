import {
	resolveValidity,
	ValidityError,
	type ValidityChoice,
} from '../../nodes/shared/domain/validity';

const NOW = new Date('2026-06-01T10:00:00Z');

/** A Valid Until as the user gave it, read in `inputTimeZone` when it has no offset. */
const until = (value: unknown, inputTimeZone = 'UTC'): ValidityChoice => ({
	kind: 'until',
	value,
	inputTimeZone,
});
const hours = (given: unknown): ValidityChoice => ({ kind: 'duration', hours: given });

/** A date that does not exist, refused with why, never rolled over into another one. */
const impossible = (value: string, why: string): [string, ValidityChoice, string] => [
	`the impossible ${value}`,
	until(value, 'Europe/Berlin'),
	`"${value}" is not a real date and time: ${why}`,
];

describe('resolveValidity', () => {
	it.each<
		[string, ValidityChoice, string, { validity_period: string; valid_until: string } | undefined]
	>([
		['service default: nothing sent', { kind: 'serviceDefault' }, 'UTC', undefined],
		[
			'24 hours from now, service in UTC',
			hours(24),
			'UTC',
			{ validity_period: '260602100000', valid_until: '2026-06-02T10:00:00.000+00:00' },
		],
		[
			'1.5 hours, service in New York',
			hours(1.5),
			'America/New_York',
			{ validity_period: '260601073000', valid_until: '2026-06-01T07:30:00.000-04:00' },
		],
		[
			'a date without offset is read in the workflow zone',
			until('2026-06-01T13:00', 'Europe/Berlin'),
			'UTC',
			{ validity_period: '260601110000', valid_until: '2026-06-01T11:00:00.000+00:00' },
		],
		[
			'a date with an offset is absolute',
			until('2026-06-03T00:00:00+02:00', 'America/New_York'),
			'Europe/Berlin',
			{ validity_period: '260603000000', valid_until: '2026-06-03T00:00:00.000+02:00' },
		],
		[
			'a date alone is midnight in the workflow zone',
			until('2026-06-02'),
			'UTC',
			{ validity_period: '260602000000', valid_until: '2026-06-02T00:00:00.000+00:00' },
		],
		[
			'the last second validity_period can carry, in the service zone',
			until('2099-12-31T23:59:59', 'Europe/Berlin'),
			'Europe/Berlin',
			{ validity_period: '991231235959', valid_until: '2099-12-31T23:59:59.000+01:00' },
		],
		[
			'an offset written +0200',
			until('2026-06-03T00:00:00+0200'),
			'UTC',
			{ validity_period: '260602220000', valid_until: '2026-06-02T22:00:00.000+00:00' },
		],
		[
			'a date as JavaScript writes it',
			until('Tue Jun 02 2026 10:00:00 GMT+0200 (Central European Summer Time)'),
			'UTC',
			{ validity_period: '260602080000', valid_until: '2026-06-02T08:00:00.000+00:00' },
		],
		[
			'a leap day',
			until('2028-02-29T12:00:00.250Z'),
			'UTC',
			{ validity_period: '280229120000', valid_until: '2028-02-29T12:00:00.000+00:00' },
		],
		[
			'hours as text from an expression',
			hours(' 24 '),
			'UTC',
			{ validity_period: '260602100000', valid_until: '2026-06-02T10:00:00.000+00:00' },
		],
		[
			'a JavaScript Date from an expression',
			until(new Date('2026-06-02T08:00:00Z'), 'America/New_York'),
			'UTC',
			{ validity_period: '260602080000', valid_until: '2026-06-02T08:00:00.000+00:00' },
		],
		[
			'a date object that writes itself as ISO (as Luxon does)',
			until({ toString: () => '2026-06-02T10:00:00.000+02:00' }),
			'UTC',
			{ validity_period: '260602080000', valid_until: '2026-06-02T08:00:00.000+00:00' },
		],
		[
			'a time just inside 2099 on the service clock, though 2100 in the workflow zone',
			until('2100-01-01T00:30', 'Europe/Berlin'),
			'UTC',
			{ validity_period: '991231233000', valid_until: '2099-12-31T23:30:00.000+00:00' },
		],
	])('%s', (_, choice, serviceZone, expected) => {
		expect(resolveValidity(choice, NOW, serviceZone)).toEqual(expected);
	});

	it.each<[string, ValidityChoice, RegExp | string]>([
		['a time in the past', until('2026-06-01T09:59:59Z'), /ends in the past/],
		['now itself', until('2026-06-01T10:00:00Z'), /ends in the past/],
		['zero hours', hours(0), /positive number of hours \(got 0\)/],
		['not a date', until('next tuesday'), /"next tuesday" is not a date and time/],
		['empty', until(''), /is not a date and time/],
		// An impossible date is refused, never rolled over into a real one.
		impossible('2027-13-01', 'there is no month 13 (01..12)'),
		impossible('2027-02-30', 'February 2027 has no day 30 (01..28)'),
		impossible('2027-02-29T10:00', 'February 2027 has no day 29 (01..28)'),
		impossible('2027-04-31T10:00:00+02:00', 'April 2027 has no day 31 (01..30)'),
		impossible('2027-01-01T25:00', 'there is no hour 25 (00..23)'),
		impossible('2027-01-01T24:00:00Z', 'there is no hour 24 (00..23)'),
		impossible('2027-01-01T10:60', 'there is no minute 60 (00..59)'),
		impossible('2027-01-01T10:00:61', 'there is no second 61 (00..59)'),
		impossible('2027-01-01T10:00:00+24:00', 'there is no offset +24:00 (-23:59..+23:59)'),
		// Durations past what a date can hold are refused in words, never a RangeError.
		[
			'2.4e9 hours',
			hours(2.4e9),
			/^A validity of 2400000000 hours ends after 2099-12-31T23:59:59\.000\+00:00, the last time validity_period \(yyMMddHHmmss\) can carry: choose fewer hours$/,
		],
		['1e300 hours', hours(1e300), /hours ends after 2099-12-31T23:59:59/],
		['Infinity hours', hours(Infinity), /positive number of hours \(got Infinity\)/],
		[
			'a duration shorter than a second',
			hours(1e-10),
			/^A validity of 1e-10 hours ends before the next whole second/,
		],
		['NaN hours', hours(NaN), /positive number of hours \(got NaN\)/],
		['negative hours', hours(-5), /positive number of hours \(got -5\)/],
		[
			'a date after 2099',
			until('2100-01-01T00:00:00Z'),
			/^The validity ends at 2100-01-01T00:00:00\.000\+00:00, after 2099-12-31T23:59:59\.000\+00:00, the last time/,
		],
		['the year 9999', until('9999-12-31'), /after 2099-12-31T23:59:59/],
		['the year 0000', until('0000-01-01'), /ends in the past/],
		// Any value an expression gives is refused in words, never a TypeError.
		[
			'hours as an object without a prototype',
			hours(Object.create(null)),
			/^The validity duration must be a positive number of hours \(got an object\)$/,
		],
		['hours as a list', hours([24]), /\(got a list\)$/],
		['hours as words', hours('a day'), /\(got "a day"\)$/],
		[
			'a date as an object without a prototype',
			until(Object.create(null)),
			/^Valid Until must be a date and time \(ISO 8601, e\.g\. 2026-12-24T18:00:00\), got an object$/,
		],
		['a date as a plain object', until({}), /got an object$/],
		['a date as a number', until(1780387200000), /got 1780387200000$/],
		['a date as a symbol', until(Symbol('x')), /got a symbol$/],
		// A bare number is not a date (Date.parse reads `1` as 2001 in the machine's zone).
		['a bare number', until('1'), /"1" is not a date and time/],
	])('refuses %s', (_, choice, message) => {
		expect(() => resolveValidity(choice, NOW, 'UTC')).toThrow(ValidityError);
		expect(() => resolveValidity(choice, NOW, 'UTC')).toThrow(message);
	});

	// The user typed a local time: a refusal is said on that clock, not in UTC.
	it.each<[string, ValidityChoice, string, string]>([
		[
			'a past time without offset, in the workflow zone',
			until('2026-06-01T11:59', 'Europe/Berlin'),
			'UTC',
			"The validity ends in the past: 2026-06-01T11:59:00.000+02:00 (Europe/Berlin, the workflow's time zone), and it is now 2026-06-01T12:00:00.000+02:00: choose a later date or a positive duration",
		],
		[
			'a past time in a zone behind UTC, the service elsewhere',
			until('2026-06-01 05:30:00', 'America/New_York'),
			'Asia/Tokyo',
			"The validity ends in the past: 2026-06-01T05:30:00.000-04:00 (America/New_York, the workflow's time zone), and it is now 2026-06-01T06:00:00.000-04:00: choose a later date or a positive duration",
		],
		[
			'a past time at the offset given, whatever the workflow zone',
			until('2026-06-01T09:00:00+05:30', 'Europe/Berlin'),
			'UTC',
			'The validity ends in the past: 2026-06-01T09:00:00.000+05:30, and it is now 2026-06-01T15:30:00.000+05:30: choose a later date or a positive duration',
		],
		[
			'a past time as JavaScript writes it, at its own offset',
			until('Mon Jun 01 2026 11:00:00 GMT+0200 (Central European Summer Time)'),
			'UTC',
			'The validity ends in the past: 2026-06-01T11:00:00.000+02:00, and it is now 2026-06-01T12:00:00.000+02:00: choose a later date or a positive duration',
		],
		[
			'past 2099 in the workflow zone, the limit on the service clock said too',
			until('2100-01-01T01:30', 'Europe/Berlin'),
			'UTC',
			"The validity ends at 2100-01-01T01:30:00.000+01:00 (Europe/Berlin, the workflow's time zone), after 2100-01-01T00:59:59.000+01:00, the last time validity_period (yyMMddHHmmss) can carry (2099-12-31 23:59:59 in the service's time zone, UTC): choose an earlier date",
		],
		[
			'past 2099 at the offset given',
			until('2100-01-01T12:00:00-08:00'),
			'Asia/Tokyo',
			"The validity ends at 2100-01-01T12:00:00.000-08:00, after 2099-12-31T06:59:59.000-08:00, the last time validity_period (yyMMddHHmmss) can carry (2099-12-31 23:59:59 in the service's time zone, Asia/Tokyo): choose an earlier date",
		],
	])('says %s', (_, choice, serviceZone, message) => {
		expect(() => resolveValidity(choice, NOW, serviceZone)).toThrow(new ValidityError(message));
	});
});
