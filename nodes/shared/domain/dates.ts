/**
 * The service writes dates as bare wall-clock times (no zone); the zone is a credential
 * setting (an IANA name, default UTC), used both for delivery_date and validity_period.
 * Only Intl is used: no date library needs bundling. Intl is slow (a few µs a call), so it is
 * asked only once per zone and UTC day (see ZoneDay); every date after that is arithmetic.
 */
import { excerpt } from './values';

export interface WallClock {
	year: number;
	month: number; // 1..12
	day: number;
	hour: number;
	minute: number;
	second: number;
	millisecond?: number;
}

/**
 * The years every date the service writes or reads can carry: the XML form and validity_period
 * write the year as two digits (20yy), so the JSON form is held to the same century. A date
 * outside is a broken answer or a typing mistake, never a real delivery or validity.
 */
const FIRST_YEAR = 2000;
export const LAST_YEAR = 2099;

const DAY = 86_400_000;

/**
 * Whether `tz` names a time zone Intl knows. Remembered per name (the Send node asks once per
 * item, and building an Intl.DateTimeFormat costs tens of µs): a pure memo of the runtime's
 * zone list, bounded, holding no data from any execution.
 */
export function isValidTimeZone(tz: string): boolean {
	if (typeof tz !== 'string' || tz.trim() === '') return false;
	let known = zoneNames.get(tz);
	if (known === undefined) {
		known = acceptedByIntl(tz);
		remember(zoneNames, tz, known, 1000);
	}
	return known;
}

const zoneNames = new Map<string, boolean>();

function acceptedByIntl(tz: string): boolean {
	try {
		new Intl.DateTimeFormat('en-US', { timeZone: tz });
		return true;
	} catch {
		return false;
	}
}

const JSON_DATE = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?$/;
const XML_DATE = /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/;

/**
 * A bare wall-clock time (no zone) as milliseconds, read as if it were UTC. It is what the
 * service writes; the credential's zone turns it into an instant later (wallToIso), so a date
 * is read once, at the edge, whatever zone it is shown in.
 */
export type WallTime = number;

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

/** zonedWallClockToInstant on a wall time in milliseconds. */
function wallToInstant(wall: WallTime, timeZone: string): number {
	if (timeZone === 'UTC') return wall;
	const days = daysOf(timeZone);
	// No zone changes its offset twice within two days, so the offsets a day either side are
	// the only candidates, and when they agree the offset holds all along (the common case).
	const before = offsetIn(days, wall - DAY, timeZone);
	const after = offsetIn(days, wall + DAY, timeZone);
	if (before === after) return wall - before;
	const first = wall - before;
	const second = wall - after;
	const firstMatches = first + offsetIn(days, first, timeZone) === wall;
	const secondMatches = second + offsetIn(days, second, timeZone) === wall;
	if (firstMatches && secondMatches) return Math.min(first, second);
	if (secondMatches) return second;
	// Either it matches or the clocks never show `wall` (a gap): the offset in force before
	// the gap pushes it forward by the gap's length.
	return first;
}

/** `2026-03-29T03:30:00.000+02:00`; UTC is written `+00:00`, not `Z`. */
export function toIsoWithOffset(at: Date, timeZone: string): string {
	return isoWithOffset(at.getTime(), offsetAt(at.getTime(), timeZone));
}

function isoWithOffset(instant: number, offset: number): string {
	return isoLocal(instant + offset) + offsetText(offset);
}

function offsetText(offset: number): string {
	const sign = offset < 0 ? '-' : '+';
	const minutes = Math.round(Math.abs(offset) / 60000);
	return `${sign}${pad2(Math.floor(minutes / 60))}:${pad2(minutes % 60)}`;
}

/** The instants whose year toISOString writes with four digits (0000..9999). */
const YEAR_0 = -62_167_219_200_000;
const YEAR_10000 = 253_402_300_800_000;

/**
 * `toISOString()` without the `Z`, by arithmetic: toISOString costs about 0.8 µs, which was
 * most of shaping a report. Days to a civil date as in Howard Hinnant's `civil_from_days`.
 */
function isoLocal(ms: number): string {
	if (!(ms >= YEAR_0 && ms < YEAR_10000)) return new Date(ms).toISOString().slice(0, -1);
	const days = Math.floor(ms / DAY);
	const z = days + 719_468;
	const era = Math.floor(z / 146_097);
	const dayOfEra = z - era * 146_097;
	const yearOfEra = Math.floor(
		(dayOfEra -
			Math.floor(dayOfEra / 1460) +
			Math.floor(dayOfEra / 36_524) -
			Math.floor(dayOfEra / 146_096)) /
			365,
	);
	const dayOfYear =
		dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
	const shifted = Math.floor((5 * dayOfYear + 2) / 153); // months from March
	const day = dayOfYear - Math.floor((153 * shifted + 2) / 5) + 1;
	const month = shifted < 10 ? shifted + 3 : shifted - 9;
	const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
	let rest = ms - days * DAY;
	const hour = Math.floor(rest / 3_600_000);
	rest -= hour * 3_600_000;
	const minute = Math.floor(rest / 60_000);
	rest -= minute * 60_000;
	const second = Math.floor(rest / 1000);
	const millisecond = rest - second * 1000;
	return `${pad4(year)}-${pad2(month)}-${pad2(day)}T${pad2(hour)}:${pad2(minute)}:${pad2(second)}.${pad3(millisecond)}`;
}

/** Milliseconds to add to UTC to get the wall clock of `timeZone` at `instant`. */
function offsetAt(instant: number, timeZone: string): number {
	if (timeZone === 'UTC') return 0; // the default zone: no lookup at all
	return offsetIn(daysOf(timeZone), instant, timeZone);
}

/** offsetAt, given the zone's remembered days (looked up once by callers that ask often). */
function offsetIn(days: Map<number, ZoneDay>, instant: number, timeZone: string): number {
	const index = Math.floor(instant / DAY);
	let day = days.get(index);
	if (day === undefined) {
		day = measureDay(index, timeZone);
		remember(days, index, day, MAX_DAYS_PER_ZONE);
	}
	let offset = day.offset;
	if (day.changes !== undefined) {
		for (const change of day.changes) if (instant >= change.at) offset = change.offset;
	}
	return offset;
}

/**
 * A zone's offsets during one UTC day: `offset` from the day's start, then each change.
 * Computed from Intl once and remembered in `zoneOffsets`: a pure function of the zone rules
 * built into the runtime, bounded in size, holding no data from any execution.
 */
interface ZoneDay {
	offset: number;
	changes?: { at: number; offset: number }[];
}

const MAX_ZONES = 64;
/** About 27 years of days per zone: more than any one answer spans. */
const MAX_DAYS_PER_ZONE = 10_000;
const zoneOffsets = new Map<string, Map<number, ZoneDay>>();

function daysOf(timeZone: string): Map<number, ZoneDay> {
	let days = zoneOffsets.get(timeZone);
	if (days === undefined) {
		days = new Map();
		remember(zoneOffsets, timeZone, days, MAX_ZONES);
	}
	return days;
}

/**
 * The day is probed every 6 hours; where two probes differ, the change is found to the second
 * by bisection (about 17 Intl calls). A zone would have to change its offset and change it back
 * within 6 hours to be missed; no zone does.
 */
const PROBE = DAY / 4;

function measureDay(index: number, timeZone: string): ZoneDay {
	const start = index * DAY;
	const day: ZoneDay = { offset: intlOffsetAt(start, timeZone) };
	let previous = day.offset;
	for (let from = start; from < start + DAY; from += PROBE) {
		const next = intlOffsetAt(from + PROBE, timeZone);
		if (next !== previous) {
			const at = firstSecondAfter(from, from + PROBE, previous, timeZone);
			(day.changes ??= []).push({ at, offset: next });
			previous = next;
		}
	}
	return day;
}

/** The first whole second in (from, to] whose offset is no longer `offset`. */
function firstSecondAfter(from: number, to: number, offset: number, timeZone: string): number {
	let low = from;
	let high = to;
	while (high - low > 1000) {
		const middle = low + Math.floor((high - low) / 2000) * 1000;
		if (intlOffsetAt(middle, timeZone) === offset) low = middle;
		else high = middle;
	}
	return high;
}

/** The offset as Intl gives it: the reference that ZoneDay only remembers. */
function intlOffsetAt(instant: number, timeZone: string): number {
	const wholeSeconds = Math.floor(instant / 1000) * 1000;
	return wallAsUtc(intlWallClockAt(wholeSeconds, timeZone)) - wholeSeconds;
}

function intlWallClockAt(instant: number, timeZone: string): WallClock {
	const parts: Record<string, number> = {};
	for (const part of formatter(timeZone).formatToParts(new Date(instant))) {
		if (part.type !== 'literal') parts[part.type] = Number(part.value);
	}
	return {
		year: parts.year,
		month: parts.month,
		day: parts.day,
		hour: parts.hour,
		minute: parts.minute,
		second: parts.second,
	};
}

function wallClockAt(instant: number, timeZone: string): WallClock {
	const local = new Date(instant + offsetAt(instant, timeZone));
	return {
		year: local.getUTCFullYear(),
		month: local.getUTCMonth() + 1,
		day: local.getUTCDate(),
		hour: local.getUTCHours(),
		minute: local.getUTCMinutes(),
		second: local.getUTCSeconds(),
	};
}

/**
 * Building an Intl.DateTimeFormat costs about half a millisecond, so one is kept per zone name.
 * This is a pure memo of a stateless helper (the same zone always formats the same way),
 * bounded by the number of zones, not data from any execution.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
	let cached = formatters.get(timeZone);
	if (!cached) {
		// The zone is checked where settings are read (isValidTimeZone); a sentence all the same.
		if (!isValidTimeZone(timeZone)) {
			throw new Error(
				`Unknown time zone "${excerpt(timeZone)}": use an IANA name such as UTC, Europe/London or America/New_York`,
			);
		}
		cached = new Intl.DateTimeFormat('en-US', {
			timeZone,
			hourCycle: 'h23',
			year: 'numeric',
			month: 'numeric',
			day: 'numeric',
			hour: 'numeric',
			minute: 'numeric',
			second: 'numeric',
		});
		remember(formatters, timeZone, cached, MAX_ZONES);
	}
	return cached;
}

/** Map.set that starts over when full: the memos above stay bounded whatever names arrive. */
function remember<K, V>(memo: Map<K, V>, key: K, value: V, limit: number): void {
	if (memo.size >= limit) memo.clear();
	memo.set(key, value);
}

function wallAsUtc(w: WallClock): number {
	const ms = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second, w.millisecond ?? 0);
	// Date.UTC maps years 0..99 to 1900..1999; set the year explicitly.
	if (w.year >= 0 && w.year < 100) {
		const date = new Date(ms);
		date.setUTCFullYear(w.year);
		return date.getTime();
	}
	return ms;
}

const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));

function pad2(n: number): string {
	return TWO_DIGITS[n] ?? String(n).padStart(2, '0');
}

function pad3(n: number): string {
	return n < 10 ? `00${n}` : n < 100 ? `0${n}` : String(n);
}

function pad4(n: number): string {
	return n < 1000 ? String(n).padStart(4, '0') : String(n);
}
