/**
 * The service writes dates as bare wall-clock times (no zone); the zone is a credential
 * setting (an IANA name, default UTC), used both for delivery_date and validity_period.
 * Only Intl is used: no date library needs bundling. Intl is slow for each call, so it is
 * asked only once per zone and UTC day (zoneOffsets.ts); every date after that is arithmetic.
 * This module reads the service's two forms and writes validity_period; ISO 8601 is written by
 * isoFormat.ts.
 */
import { excerpt } from './values';
import { isoWithOffset, pad2 } from './isoFormat';
import { wallAsUtc, type WallClock, type WallTime } from './wallClock';
import { offsetAt, wallClockAt, wallToInstant } from './zoneOffsets';

/**
 * The years every date the service writes or reads can carry: the XML form and validity_period
 * write the year as two digits (20yy), so the JSON form is held to the same century. A date
 * outside is a broken answer or a typing mistake, never a real delivery or validity.
 */
const FIRST_YEAR = 2000;
export const LAST_YEAR = 2099;

const JSON_DATE = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?$/;
const XML_DATE = /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/;

/**
 * `yyyy-MM-dd HH:mm:ss.S` (JSON) or `yyMMddHHmmss` (XML, 20yy). Empty (ENROUTE) gives null.
 * An impossible date (month 13, 30 February, 25:00) or a year outside FIRST_YEAR..LAST_YEAR is
 * a problem, never normalised into another date.
 */
export function readWallTime(raw: string): { wall: WallTime | null } | { problem: string } {
	const quick = quickWallTime(raw);
	if (quick !== undefined) return { wall: quick };
	const text = raw.trim();
	if (text === '') return { wall: null };
	const shown = `delivery_date "${excerpt(text)}"`;
	const clock = readWallClock(text);
	if (!clock) {
		return { problem: `${shown} is not a date: expected yyyy-MM-dd HH:mm:ss.S or yyMMddHHmmss` };
	}
	const impossible = whatIsImpossible(clock);
	if (impossible) return { problem: `${shown} is not a real date: ${impossible}` };
	if (clock.year < FIRST_YEAR || clock.year > LAST_YEAR) {
		return {
			problem: `${shown} is in the year ${clock.year}: the service's dates fall in ${FIRST_YEAR}..${LAST_YEAR}`,
		};
	}
	return { wall: wallAsUtc(clock) };
}

/** The wall-clock time as shown in `timeZone`, as ISO 8601 with that zone's offset. */
export function wallToIso(wall: WallTime, timeZone: string): string {
	const instant = wallToInstant(wall, timeZone);
	return isoWithOffset(instant, offsetAt(instant, timeZone));
}

/**
 * `yyyy-MM-dd HH:mm:ss.S` (JSON) or `yyMMddHHmmss` (XML, 20yy), read as wall-clock time in
 * `timeZone`, returned as ISO 8601 with that zone's offset. Empty (ENROUTE) gives null.
 * The nodes take the two steps apart (readWallTime when an answer is read, wallToIso when a
 * report is shaped); this is both at once, as a date written by the service ends up.
 */
export function parseDeliveryDate(raw: string, timeZone: string): string | null {
	const read = readWallTime(raw);
	if ('problem' in read) throw new Error(read.problem);
	return read.wall === null ? null : wallToIso(read.wall, timeZone);
}

/**
 * The two forms the service writes, read digit by digit: a status answer holds one date per
 * report, and this is most of what reading it costs. Anything it is not sure of (spaces, other
 * lengths, an impossible field) is left to the general reader, which says what is wrong.
 */
function quickWallTime(text: string): WallTime | undefined {
	if (text.length === 12) {
		return realWallTime(text, 2000 + twoDigits(text, 0), 2, 4, 6, 8, 10, 0);
	}
	if (text.length !== 21 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45)
		return undefined;
	if (text.charCodeAt(10) !== 32 || text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) {
		return undefined;
	}
	if (text.charCodeAt(19) !== 46) return undefined;
	const year = twoDigits(text, 0) * 100 + twoDigits(text, 2);
	return realWallTime(text, year, 5, 8, 11, 14, 17, digitAt(text, 20) * 100);
}

/** The fields at these positions as a wall time, if they make a real date the service can write. */
function realWallTime(
	text: string,
	year: number,
	monthAt: number,
	dayAt: number,
	hourAt: number,
	minuteAt: number,
	secondAt: number,
	millisecond: number,
): WallTime | undefined {
	const month = twoDigits(text, monthAt);
	const day = twoDigits(text, dayAt);
	const hour = twoDigits(text, hourAt);
	const minute = twoDigits(text, minuteAt);
	const second = twoDigits(text, secondAt);
	const real =
		year >= FIRST_YEAR &&
		year <= LAST_YEAR &&
		month >= 1 &&
		month <= 12 &&
		day >= 1 &&
		day <= daysIn(year, month) &&
		hour < 24 &&
		minute < 60 &&
		second < 60 &&
		millisecond >= 0;
	return real ? Date.UTC(year, month - 1, day, hour, minute, second, millisecond) : undefined;
}

/** The number written by two digits at `at`; NaN when either is not a digit. */
function twoDigits(text: string, at: number): number {
	return digitAt(text, at) * 10 + digitAt(text, at + 1);
}

function digitAt(text: string, at: number): number {
	const code = text.charCodeAt(at) - 48;
	return code >= 0 && code <= 9 ? code : NaN;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(year: number, month: number): number {
	if (month !== 2) return DAYS_IN_MONTH[month - 1];
	return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
}

function readWallClock(text: string): WallClock | undefined {
	const json = JSON_DATE.exec(text);
	if (json) {
		const [year, month, day, hour, minute, second] = json.slice(1, 7).map(Number);
		// `.5` is half a second: pad the fraction on the right, not the left.
		const millisecond = json[7] ? Number(json[7].padEnd(3, '0')) : 0;
		return { year, month, day, hour, minute, second, millisecond };
	}
	const xml = XML_DATE.exec(text);
	if (xml) {
		const [yy, month, day, hour, minute, second] = xml.slice(1, 7).map(Number);
		return { year: 2000 + yy, month, day, hour, minute, second, millisecond: 0 };
	}
	return undefined;
}

const MONTHS = [
	'January',
	'February',
	'March',
	'April',
	'May',
	'June',
	'July',
	'August',
	'September',
	'October',
	'November',
	'December',
];

/**
 * Why no clock ever shows `w` (month 13, 30 February, 25:00...), or undefined when it is a real
 * date and time. Date.UTC would silently roll such values over into another date.
 */
export function whatIsImpossible(w: WallClock): string | undefined {
	if (w.month < 1 || w.month > 12) return `there is no month ${w.month} (01..12)`;
	const lastDay = daysIn(w.year, w.month);
	if (w.day < 1 || w.day > lastDay) {
		return `${MONTHS[w.month - 1]} ${w.year} has no day ${w.day} (01..${lastDay})`;
	}
	if (w.hour > 23) return `there is no hour ${w.hour} (00..23)`;
	if (w.minute > 59) return `there is no minute ${w.minute} (00..59)`;
	if (w.second > 59) return `there is no second ${w.second} (00..59)`;
	return undefined;
}

/**
 * `validity_period`: the instant as yyMMddHHmmss on the wall clock of `timeZone`. Throws for an
 * instant whose year two digits cannot carry; resolveValidity refuses those first, in words.
 */
export function formatValidity(at: Date, timeZone: string): string {
	const w = wallClockAt(at.getTime(), timeZone);
	if (!(w.year >= FIRST_YEAR && w.year <= LAST_YEAR)) {
		throw new Error(
			`validity_period must fall in ${FIRST_YEAR}..${LAST_YEAR} (yyMMddHHmmss), got year ${w.year}`,
		);
	}
	return [w.year % 100, w.month, w.day, w.hour, w.minute, w.second].map(pad2).join('');
}

/**
 * The instant at which the clocks in `timeZone` show `wall`.
 * DST rules, so that every wall-clock time maps to exactly one instant:
 * - ambiguous (fall back, the hour happens twice): the EARLIER instant, i.e. the first
 *   time the clock showed it;
 * - non-existent (spring-forward gap): moved forward by the length of the gap, e.g.
 *   02:30 on a Berlin spring-forward day becomes 03:30+02:00 (the offset before the gap applies).
 */
export function zonedWallClockToInstant(wall: WallClock, timeZone: string): Date {
	return new Date(wallToInstant(wallAsUtc(wall), timeZone));
}

/** `2026-03-29T03:30:00.000+02:00`; UTC is written `+00:00`, not `Z`. */
export function toIsoWithOffset(at: Date, timeZone: string): string {
	return isoWithOffset(at.getTime(), offsetAt(at.getTime(), timeZone));
}
