/**
 * The service writes dates as bare wall-clock times (no zone); the zone is a credential
 * setting (an IANA name, default UTC), used both for delivery_date and validity_period.
 * Only Intl is used: no date library needs bundling.
 */

export interface WallClock {
	year: number;
	month: number; // 1..12
	day: number;
	hour: number;
	minute: number;
	second: number;
	millisecond?: number;
}

export function isValidTimeZone(tz: string): boolean {
	if (typeof tz !== 'string' || tz.trim() === '') return false;
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
 */
export function readWallTime(raw: string): { wall: WallTime | null } | { problem: string } {
	const text = raw.trim();
	if (text === '') return { wall: null };
	const wall = readWallClock(text);
	if (!wall || !isRealDate(wall)) {
		return {
			problem: `delivery_date "${text}" is not a date: expected yyyy-MM-dd HH:mm:ss.S or yyMMddHHmmss`,
		};
	}
	return { wall: wallAsUtc(wall) };
}

/** The wall-clock time as shown in `timeZone`, as ISO 8601 with that zone's offset. */
export function wallToIso(wall: WallTime, timeZone: string): string {
	const date = new Date(wall);
	const clock: WallClock = {
		year: date.getUTCFullYear(),
		month: date.getUTCMonth() + 1,
		day: date.getUTCDate(),
		hour: date.getUTCHours(),
		minute: date.getUTCMinutes(),
		second: date.getUTCSeconds(),
		millisecond: date.getUTCMilliseconds(),
	};
	return toIsoWithOffset(zonedWallClockToInstant(clock, timeZone), timeZone);
}

/**
 * `yyyy-MM-dd HH:mm:ss.S` (JSON) or `yyMMddHHmmss` (XML, 20yy), read as wall-clock time in
 * `timeZone`, returned as ISO 8601 with that zone's offset. Empty (ENROUTE) gives null.
 */
export function parseDeliveryDate(raw: string, timeZone: string): string | null {
	const result = readDeliveryDate(raw, timeZone);
	if ('problem' in result) throw new Error(result.problem);
	return result.iso;
}

/** As parseDeliveryDate, but reports a malformed date as a value instead of throwing. */
export function readDeliveryDate(
	raw: string,
	timeZone: string,
): { iso: string | null } | { problem: string } {
	const read = readWallTime(raw);
	if ('problem' in read) return read;
	return { iso: read.wall === null ? null : wallToIso(read.wall, timeZone) };
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

function isRealDate(w: WallClock): boolean {
	const probe = new Date(wallAsUtc(w));
	return (
		probe.getUTCFullYear() === w.year &&
		probe.getUTCMonth() + 1 === w.month &&
		probe.getUTCDate() === w.day &&
		w.hour < 24 &&
		w.minute < 60 &&
		w.second < 60
	);
}

/** `validity_period`: the instant as yyMMddHHmmss on the wall clock of `timeZone`. */
export function formatValidity(at: Date, timeZone: string): string {
	const w = wallClockAt(at.getTime(), timeZone);
	if (w.year < 2000 || w.year > 2099) {
		throw new Error(`validity_period must fall in 2000..2099 (yyMMddHHmmss), got year ${w.year}`);
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
	const local = wallAsUtc(wall);
	const day = 24 * 3600 * 1000;
	const offsets = [offsetAt(local - day, timeZone), offsetAt(local + day, timeZone)];
	const matches = offsets
		.map((offset) => local - offset)
		.filter((instant) => local - offsetAt(instant, timeZone) === instant)
		.sort((a, b) => a - b);
	// In a gap no candidate matches: the offset in force before the gap pushes it forward.
	return new Date(matches.length > 0 ? matches[0] : local - offsets[0]);
}

/** `2026-03-29T03:30:00.000+02:00`; UTC is written `+00:00`, not `Z`. */
export function toIsoWithOffset(at: Date, timeZone: string): string {
	const offset = offsetAt(at.getTime(), timeZone);
	const local = new Date(at.getTime() + offset).toISOString().slice(0, -1);
	const sign = offset < 0 ? '-' : '+';
	const minutes = Math.round(Math.abs(offset) / 60000);
	return `${local}${sign}${pad2(Math.floor(minutes / 60))}:${pad2(minutes % 60)}`;
}

/** Milliseconds to add to UTC to get the wall clock of `timeZone` at `instant`. */
export function offsetAt(instant: number, timeZone: string): number {
	if (timeZone === 'UTC') return 0; // the default zone: skip Intl on the hot path
	const wholeSeconds = Math.floor(instant / 1000) * 1000;
	return wallAsUtc(wallClockAt(wholeSeconds, timeZone)) - wholeSeconds;
}

export function wallClockAt(instant: number, timeZone: string): WallClock {
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

/**
 * Building an Intl.DateTimeFormat costs about half a millisecond, which made shaping a large
 * batch take minutes, so one is kept per zone name. This is a pure memo of a stateless helper
 * (the same zone always formats the same way), bounded by the number of zones, not data from
 * any execution.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
	let cached = formatters.get(timeZone);
	if (!cached) {
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
		formatters.set(timeZone, cached);
	}
	return cached;
}

function wallAsUtc(w: WallClock): number {
	const ms = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second, w.millisecond ?? 0);
	// Date.UTC maps years 0..99 to 1900..1999; set the year explicitly.
	const date = new Date(ms);
	date.setUTCFullYear(w.year);
	return date.getTime();
}

function pad2(n: number): string {
	return String(n).padStart(2, '0');
}
