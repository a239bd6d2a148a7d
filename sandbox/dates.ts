/**
 * Dates on the wire carry no time zone (docs/interface.md 2.1, 2.3), so the sandbox declares one (default UTC)
 * and uses it both ways: to read validity_period and to write delivery_date.
 */

export interface Fields {
	year: number;
	month: number; // 1-12
	day: number;
	hour: number;
	minute: number;
	second: number;
	millisecond: number;
}

const OFFSET_ZONE = /^([+-])(\d{2}):?(\d{2})$/;

/** Throws a RangeError for a zone that is neither UTC, a ±HH:MM offset, nor an IANA name. */
export function assertTimeZone(zone: string): void {
	if (zone === 'UTC' || OFFSET_ZONE.test(zone)) return;
	new Intl.DateTimeFormat('en-US', { timeZone: zone });
}

function fixedOffsetMs(zone: string): number | undefined {
	if (zone === 'UTC') return 0;
	const m = OFFSET_ZONE.exec(zone);
	if (!m) return undefined;
	const sign = m[1] === '-' ? -1 : 1;
	return sign * (Number(m[2]) * 60 + Number(m[3])) * 60_000;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function ianaFormatter(zone: string): Intl.DateTimeFormat {
	let f = formatters.get(zone);
	if (!f) {
		f = new Intl.DateTimeFormat('en-US', {
			timeZone: zone,
			hourCycle: 'h23',
			year: 'numeric',
			month: 'numeric',
			day: 'numeric',
			hour: 'numeric',
			minute: 'numeric',
			second: 'numeric',
		});
		formatters.set(zone, f);
	}
	return f;
}

/** Offset of the zone from UTC at the given instant, in ms (positive east of Greenwich). */
function offsetAt(epochMs: number, zone: string): number {
	const fixed = fixedOffsetMs(zone);
	if (fixed !== undefined) return fixed;
	const parts = ianaFormatter(zone).formatToParts(new Date(epochMs));
	const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
	const wall = Date.UTC(
		get('year'),
		get('month') - 1,
		get('day'),
		get('hour'),
		get('minute'),
		get('second'),
	);
	return wall - Math.floor(epochMs / 1000) * 1000;
}

export function toZoned(epochMs: number, zone: string): Fields {
	const d = new Date(epochMs + offsetAt(epochMs, zone));
	return {
		year: d.getUTCFullYear(),
		month: d.getUTCMonth() + 1,
		day: d.getUTCDate(),
		hour: d.getUTCHours(),
		minute: d.getUTCMinutes(),
		second: d.getUTCSeconds(),
		millisecond: d.getUTCMilliseconds(),
	};
}

export function fromZoned(f: Fields, zone: string): number {
	const wall = Date.UTC(f.year, f.month - 1, f.day, f.hour, f.minute, f.second, f.millisecond);
	// Two passes settle the offset around a DST change.
	const first = wall - offsetAt(wall, zone);
	return wall - offsetAt(first, zone);
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** JSON delivery_date: yyyy-MM-dd HH:mm:ss.S (one fractional digit: tenths of a second). */
export function formatJsonDate(epochMs: number, zone: string): string {
	const f = toZoned(epochMs, zone);
	const date = `${pad(f.year, 4)}-${pad(f.month)}-${pad(f.day)}`;
	return `${date} ${pad(f.hour)}:${pad(f.minute)}:${pad(f.second)}.${Math.floor(f.millisecond / 100)}`;
}

/** XML delivery_date and validity_period: yyMMddHHmmss. */
export function formatCompactDate(epochMs: number, zone: string): string {
	const f = toZoned(epochMs, zone);
	return `${pad(f.year % 100)}${pad(f.month)}${pad(f.day)}${pad(f.hour)}${pad(f.minute)}${pad(f.second)}`;
}

function daysInMonth(year: number, month: number): number {
	return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Reads yyMMddHHmmss (years 2000-2099); undefined when it is not exactly that or not a real date. */
export function parseCompactDate(text: string, zone: string): number | undefined {
	if (!/^\d{12}$/.test(text)) return undefined;
	const [yy, month, day, hour, minute, second] = (text.match(/\d\d/g) ?? []).map(Number);
	const year = 2000 + yy;
	if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
	if (hour > 23 || minute > 59 || second > 59) return undefined;
	return fromZoned({ year, month, day, hour, minute, second, millisecond: 0 }, zone);
}
