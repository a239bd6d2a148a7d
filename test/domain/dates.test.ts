import {
	formatValidity,
	parseDeliveryDate,
	zonedWallClockToInstant,
} from '../../nodes/shared/domain/dates';
import { isValidTimeZone } from '../../nodes/shared/domain/zoneOffsets';

describe('isValidTimeZone', () => {
	it.each([
		['UTC', true],
		['Europe/Berlin', true],
		['America/New_York', true],
		['Asia/Kolkata', true],
		['Mars/Olympus_Mons', false],
		['', false],
		['Europe/Berlin ', false],
	])('%j → %s', (tz, valid) => {
		expect(isValidTimeZone(tz)).toBe(valid);
	});

	it.each([[42], [null], [{}]])('%p (not a name) → false', (tz) => {
		expect(isValidTimeZone(tz as unknown as string)).toBe(false);
	});

	// The Send node asks for every item: building a DateTimeFormat each time cost ~64 µs.
	it('asks Intl once per name, however often it is asked', () => {
		const built = jest.spyOn(Intl, 'DateTimeFormat');
		try {
			for (let i = 0; i < 1000; i++) {
				expect(isValidTimeZone('Pacific/Marquesas')).toBe(true);
				expect(isValidTimeZone('Mars/Phobos')).toBe(false);
			}
			expect(built.mock.calls.length).toBeLessThanOrEqual(2);
		} finally {
			built.mockRestore();
		}
	});
});

describe('parseDeliveryDate', () => {
	it.each([
		// Both wire forms, fraction of 1, 2, 3 digits or none.
		['2026-01-15 12:00:00.0', 'UTC', '2026-01-15T12:00:00.000+00:00'],
		['2026-01-15 12:00:00.5', 'UTC', '2026-01-15T12:00:00.500+00:00'],
		['2026-01-15 12:00:00.25', 'UTC', '2026-01-15T12:00:00.250+00:00'],
		['2026-01-15 12:00:00.125', 'UTC', '2026-01-15T12:00:00.125+00:00'],
		['2026-01-15 12:00:00', 'UTC', '2026-01-15T12:00:00.000+00:00'],
		['260115120000', 'UTC', '2026-01-15T12:00:00.000+00:00'],
		[' 260115120000 ', 'UTC', '2026-01-15T12:00:00.000+00:00'],
		// Other zones, including negative and half-hour offsets.
		['2026-01-15 12:00:00.0', 'Europe/Berlin', '2026-01-15T12:00:00.000+01:00'],
		['2026-07-15 12:00:00.0', 'Europe/Berlin', '2026-07-15T12:00:00.000+02:00'],
		['260115120000', 'America/New_York', '2026-01-15T12:00:00.000-05:00'],
		['2026-07-04 23:59:59.9', 'America/New_York', '2026-07-04T23:59:59.900-04:00'],
		['2026-01-15 12:00:00.0', 'Asia/Kolkata', '2026-01-15T12:00:00.000+05:30'],
		['2024-02-29 00:00:00.0', 'UTC', '2024-02-29T00:00:00.000+00:00'],
		// Spring forward: the local hour 02:00–03:00 does not exist; moved forward by the gap.
		['2026-03-29 02:30:00.0', 'Europe/Berlin', '2026-03-29T03:30:00.000+02:00'],
		['260329023000', 'Europe/Berlin', '2026-03-29T03:30:00.000+02:00'],
		['2026-03-29 01:59:59.0', 'Europe/Berlin', '2026-03-29T01:59:59.000+01:00'],
		['2026-03-29 03:00:00.0', 'Europe/Berlin', '2026-03-29T03:00:00.000+02:00'],
		['2026-03-29 01:30:00.0', 'Europe/London', '2026-03-29T02:30:00.000+01:00'],
		['2026-03-08 02:30:00.0', 'America/New_York', '2026-03-08T03:30:00.000-04:00'],
		// Fall back: the local hour happens twice; the earlier instant (summer time) is taken.
		['2026-10-25 02:30:00.0', 'Europe/Berlin', '2026-10-25T02:30:00.000+02:00'],
		['2026-10-25 03:00:00.0', 'Europe/Berlin', '2026-10-25T03:00:00.000+01:00'],
		['2026-10-25 01:30:00.0', 'Europe/London', '2026-10-25T01:30:00.000+01:00'],
		['261101013000', 'America/New_York', '2026-11-01T01:30:00.000-04:00'],
	])('%j in %s → %s', (raw, tz, iso) => {
		expect(parseDeliveryDate(raw, tz)).toBe(iso);
	});

	it.each([[''], ['   ']])('%j (not delivered yet) → null', (raw) => {
		expect(parseDeliveryDate(raw, 'Europe/Berlin')).toBeNull();
	});

	// Date.UTC rolls these over into another date (13/2026 is 01/2027): refused instead.
	it.each([
		['2026-02-30 00:00:00.0', 'February 2026 has no day 30 (01..28)'],
		['2028-02-30 00:00:00.0', 'February 2028 has no day 30 (01..29)'],
		['2027-02-29 00:00:00.0', 'February 2027 has no day 29 (01..28)'],
		['2026-04-31 00:00:00.0', 'April 2026 has no day 31 (01..30)'],
		['2026-01-00 00:00:00.0', 'January 2026 has no day 0 (01..31)'],
		['2026-13-01 00:00:00.0', 'there is no month 13 (01..12)'],
		['2026-00-10 00:00:00.0', 'there is no month 0 (01..12)'],
		['2026-01-01 24:00:00.0', 'there is no hour 24 (00..23)'],
		['2026-01-01 25:00:00.0', 'there is no hour 25 (00..23)'],
		['2026-01-01 12:60:00.0', 'there is no minute 60 (00..59)'],
		['2026-01-01 12:00:60.0', 'there is no second 60 (00..59)'],
		['270230120000', 'February 2027 has no day 30 (01..28)'],
		['271301120000', 'there is no month 13 (01..12)'],
	])('%j → refused: %s', (raw, why) => {
		expect(() => parseDeliveryDate(raw, 'UTC')).toThrow(
			`delivery_date "${raw}" is not a real date: ${why}`,
		);
	});

	// Year 0000 gave a malformed ISO value in zones with a local mean time offset.
	it.each([
		['0000-01-01 00:00:00.0', 0],
		['1999-12-31 23:59:59.9', 1999],
		['2100-01-01 00:00:00.0', 2100],
		['9999-12-31 23:59:59.9', 9999],
	])('%j → refused: the year %s is out of range', (raw, year) => {
		for (const zone of ['UTC', 'Europe/Berlin']) {
			expect(() => parseDeliveryDate(raw, zone)).toThrow(
				`delivery_date "${raw}" is in the year ${year}: the service's dates fall in 2000..2099`,
			);
		}
	});

	it.each([
		['2000-01-01 00:00:00.0', 'UTC', '2000-01-01T00:00:00.000+00:00'],
		['2099-12-31 23:59:59.9', 'Asia/Kolkata', '2099-12-31T23:59:59.900+05:30'],
		['000101000000', 'America/New_York', '2000-01-01T00:00:00.000-05:00'],
	])('%j in %s → %s (the first and last years)', (raw, tz, iso) => {
		expect(parseDeliveryDate(raw, tz)).toBe(iso);
	});

	it('shortens a long malformed date in its message', () => {
		expect(() => parseDeliveryDate('9'.repeat(10_000), 'UTC')).toThrow(
			`delivery_date "${'9'.repeat(40)}…" is not a date`,
		);
	});

	it.each([
		['2026-01-01 12:00:00.1234'],
		['2026-01-01'],
		['26011512000'],
		['2026-01-15T12:00:00Z'],
		['yesterday'],
	])('%j → throws what was expected', (raw) => {
		expect(() => parseDeliveryDate(raw, 'UTC')).toThrow(
			`delivery_date "${raw}" is not a date: expected yyyy-MM-dd HH:mm:ss.S or yyMMddHHmmss`,
		);
	});
});

describe('an unknown zone in the shaping functions', () => {
	it('is a sentence, not a RangeError from Intl', () => {
		expect(() => parseDeliveryDate('2026-01-15 12:00:00.0', 'Mars/Olympus_Mons')).toThrow(
			'Unknown time zone "Mars/Olympus_Mons": use an IANA name such as UTC, Europe/London or America/New_York',
		);
	});
});

describe('zonedWallClockToInstant', () => {
	it.each([
		[
			{ year: 2026, month: 3, day: 29, hour: 2, minute: 30, second: 0 },
			'Europe/Berlin',
			'2026-03-29T01:30:00.000Z',
		],
		[
			{ year: 2026, month: 10, day: 25, hour: 2, minute: 30, second: 0 },
			'Europe/Berlin',
			'2026-10-25T00:30:00.000Z',
		],
		[
			{ year: 2026, month: 6, day: 1, hour: 0, minute: 0, second: 0, millisecond: 7 },
			'America/New_York',
			'2026-06-01T04:00:00.007Z',
		],
		// Lord Howe Island moves its clocks by 30 minutes: the gap is 30 minutes long.
		[
			{ year: 2026, month: 10, day: 4, hour: 2, minute: 15, second: 0 },
			'Australia/Lord_Howe',
			'2026-10-03T15:45:00.000Z',
		],
	])('%j in %s → %s', (wall, tz, iso) => {
		expect(zonedWallClockToInstant(wall, tz).toISOString()).toBe(iso);
	});
});

describe('formatValidity', () => {
	it.each([
		['2026-01-15T12:00:00Z', 'UTC', '260115120000'],
		['2026-01-15T12:00:00Z', 'Europe/Berlin', '260115130000'],
		['2026-07-15T12:00:00Z', 'Europe/Berlin', '260715140000'],
		['2027-01-01T03:04:05Z', 'America/New_York', '261231220405'],
		['2026-01-15T12:00:00Z', 'Asia/Kolkata', '260115173000'],
		['2026-03-29T01:00:00Z', 'Europe/Berlin', '260329030000'],
		['2026-10-25T00:30:00Z', 'Europe/Berlin', '261025023000'],
		['2026-10-25T01:30:00Z', 'Europe/Berlin', '261025023000'],
	])('%s in %s → %s', (instant, tz, expected) => {
		expect(formatValidity(new Date(instant), tz)).toBe(expected);
	});

	it('round-trips through parseDeliveryDate', () => {
		const at = new Date('2026-08-01T09:15:30Z');
		expect(parseDeliveryDate(formatValidity(at, 'America/New_York'), 'America/New_York')).toBe(
			'2026-08-01T05:15:30.000-04:00',
		);
	});

	it('refuses a year yyMMddHHmmss cannot carry', () => {
		expect(() => formatValidity(new Date('2100-06-01T00:00:00Z'), 'UTC')).toThrow(
			'validity_period must fall in 2000..2099 (yyMMddHHmmss), got year 2100',
		);
	});
});
