/**
 * Time zones by arithmetic: a zone's offset at an instant, and the instant at which its clocks
 * show a wall time. Intl asked for every date is the general path, and slow (formatToParts was
 * most of a report's cost); here it is asked once per zone and UTC day (probed every 6 hours, a
 * change found to the second by bisection), and every date after that is arithmetic on the
 * remembered day (ZoneDay). Held equal to Intl by the differential property test
 * test/domain/dates.property.test.ts ("zone arithmetic agrees with Intl": instants and wall times
 * in 21 zones, many within hours of a DST change). What it buys: a delivery_date shaped in any
 * zone at about the cost of UTC, where asking Intl made it an order of magnitude dearer
 * (docs/benchmarks.md, "Dates by arithmetic"; docs/decisions.md, "Time zones by arithmetic").
 */
import { excerpt } from './values';
import { DAY, wallAsUtc, type WallClock, type WallTime } from './wallClock';

/**
 * Whether `tz` names a time zone Intl knows. Remembered per name (the Send node asks once per
 * item, and building an Intl.DateTimeFormat costs more than reading many dates): a pure memo of
 * the runtime's zone list, bounded, holding no data from any execution.
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

/**
 * The instant at which the clocks in `timeZone` show `wall` (see zonedWallClockToInstant in
 * dates.ts for the DST rules).
 */
export function wallToInstant(wall: WallTime, timeZone: string): number {
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

/** Milliseconds to add to UTC to get the wall clock of `timeZone` at `instant`. */
export function offsetAt(instant: number, timeZone: string): number {
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

export function wallClockAt(instant: number, timeZone: string): WallClock {
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
