import {
	LAST_YEAR,
	formatValidity,
	toIsoWithOffset,
	whatIsImpossible,
	zonedWallClockToInstant,
} from './dates';
import { isoWithOffset } from './isoFormat';
import type { WallClock } from './wallClock';
import { excerpt } from './values';

/** How long the service should keep trying to deliver a message. */
export type ValidityChoice =
	| { kind: 'serviceDefault' }
	// `hours` and `value` are what the user gave, as n8n resolved it (an expression can give
	// any value): they are checked here, so that a caller needs no Number() or String(), which
	// throw on some values.
	| { kind: 'duration'; hours: unknown }
	| { kind: 'until'; value: unknown; inputTimeZone: string };

export interface Validity {
	/** As sent: yyMMddHHmmss in the service's time zone. */
	validity_period: string;
	/** The same instant, ISO 8601 with offset, for people. */
	valid_until: string;
}

export class ValidityError extends Error {}

/** ISO 8601: a date, optionally a time, and (only after a time) optionally an offset. */
const ISO_DATE_TIME =
	/^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;
/** A date as JavaScript writes it (`... GMT+0200 (...)`, `... GMT`): it names its own offset. */
const WRITTEN_OFFSET = /(?:\b(?:GMT|UTC))?([+-]\d{4})\b|\b(?:GMT|UTC)\b/;

/**
 * Turns the user's choice into the absolute validity the service expects, or undefined for
 * the service's default (7 days). A time in the past is refused: the service would expire
 * every message at once while still charging for it. So is a time after 2099, which
 * yyMMddHHmmss cannot carry. A date and time is refused in the user's own time: in the zone it
 * was read in, or at the offset it was written with.
 */
export function resolveValidity(
	choice: ValidityChoice,
	now: Date,
	serviceTimeZone: string,
): Validity | undefined {
	if (choice.kind === 'serviceDefault') return undefined;
	const until =
		choice.kind === 'duration'
			? durationEnd(choice.hours, now, serviceTimeZone)
			: dateEnd(choice, now, serviceTimeZone);
	return {
		validity_period: formatValidity(new Date(until), serviceTimeZone),
		valid_until: toIsoWithOffset(new Date(until), serviceTimeZone),
	};
}

/** yyMMddHHmmss has whole seconds: what the service is told is the second that began. */
function wholeSecond(instant: number): number {
	return Math.floor(instant / 1000) * 1000;
}

/** Hours from now; said in the service's time zone, since the user typed no time. */
function durationEnd(hours: unknown, now: Date, serviceTimeZone: string): number {
	const until = wholeSecond(afterHours(now, hours));
	if (until <= now.getTime()) {
		throw new ValidityError(
			`A validity of ${hours} hours ends before the next whole second, the smallest step validity_period (yyMMddHHmmss) carries: choose a longer duration`,
		);
	}
	const latest = latestValidity(serviceTimeZone);
	if (until > latest) {
		throw new ValidityError(
			`A validity of ${hours} hours ends after ${toIsoWithOffset(new Date(latest), serviceTimeZone)}, the last time validity_period (yyMMddHHmmss) can carry: choose fewer hours`,
		);
	}
	return until;
}

/** Valid Until; a refusal shows the times on the clock the user wrote it on. */
function dateEnd(
	choice: { value: unknown; inputTimeZone: string },
	now: Date,
	serviceTimeZone: string,
): number {
	const { instant, clock } = parseInstant(choice);
	const until = wholeSecond(instant);
	if (until <= now.getTime()) {
		throw new ValidityError(
			`The validity ends in the past: ${clock.show(until)}${clock.label}, and it is now ${clock.show(now.getTime())}: choose a later date or a positive duration`,
		);
	}
	const latest = latestValidity(serviceTimeZone);
	if (until > latest) {
		const last = toIsoWithOffset(new Date(latest), serviceTimeZone);
		const onTheService = `${last.slice(0, 10)} ${last.slice(11, 19)} in the service's time zone, ${serviceTimeZone}`;
		throw new ValidityError(
			`The validity ends at ${clock.show(until)}${clock.label}, after ${clock.show(latest)}, the last time validity_period (yyMMddHHmmss) can carry (${onTheService}): choose an earlier date`,
		);
	}
	return until;
}

/** The last second of LAST_YEAR on the service's clock. */
function latestValidity(serviceTimeZone: string): number {
	const last = { year: LAST_YEAR, month: 12, day: 31, hour: 23, minute: 59, second: 59 };
	return zonedWallClockToInstant(last, serviceTimeZone).getTime();
}

/** The clock a date was written on: a time zone (the workflow's), or an offset it names. */
interface WrittenClock {
	/** An instant as ISO 8601 on that clock. */
	show(instant: number): string;
	/** What to add after a time shown on it: the zone, unless its offset says it all. */
	label: string;
}

function zoneClock(timeZone: string): WrittenClock {
	return {
		show: (instant) => toIsoWithOffset(new Date(instant), timeZone),
		label: ` (${timeZone}, the workflow's time zone)`,
	};
}

function offsetClock(offset: number): WrittenClock {
	return { show: (instant) => isoWithOffset(instant, offset), label: '' };
}

/** Milliseconds; may lie beyond what a Date holds (resolveValidity refuses those). */
function afterHours(now: Date, hours: unknown): number {
	const count = typeof hours === 'string' && hours.trim() !== '' ? Number(hours) : hours;
	if (typeof count !== 'number' || !Number.isFinite(count) || count <= 0) {
		throw new ValidityError(
			`The validity duration must be a positive number of hours (got ${shown(hours)})`,
		);
	}
	return now.getTime() + count * 3_600_000;
}

/**
 * A date with an offset is absolute; one without is read in the workflow's time zone, as n8n
 * shows it. Returns the instant and the clock it was written on.
 */
function parseInstant(choice: { value: unknown; inputTimeZone: string }): {
	instant: number;
	clock: WrittenClock;
} {
	const value = untilText(choice.value).trim();
	const iso = ISO_DATE_TIME.exec(value);
	if (iso) return isoInstant(iso, value, choice.inputTimeZone);
	const written = WRITTEN_OFFSET.exec(value);
	const instant = written ? Date.parse(value) : Number.NaN;
	if (!written || Number.isNaN(instant)) {
		throw new ValidityError(
			`"${excerpt(value)}" is not a date and time: use ISO 8601, e.g. 2026-12-24T18:00:00 or 2026-12-24T18:00:00+01:00`,
		);
	}
	// `GMT+0200` names its offset; a bare `GMT` or `UTC` is +00:00.
	return { instant, clock: offsetClock(offsetMs(written[1] ?? 'Z')) };
}

function isoInstant(
	fields: RegExpExecArray,
	value: string,
	inputTimeZone: string,
): { instant: number; clock: WrittenClock } {
	const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '0', offset] =
		fields;
	const wall: WallClock = {
		year: +year,
		month: +month,
		day: +day,
		hour: +hour,
		minute: +minute,
		second: +second,
		millisecond: Math.floor(Number(`0.${fraction}`) * 1000),
	};
	const impossible = whatIsImpossible(wall) ?? impossibleOffset(offset);
	if (impossible) {
		throw new ValidityError(`"${excerpt(value)}" is not a real date and time: ${impossible}`);
	}
	if (offset === undefined) {
		const instant = zonedWallClockToInstant(wall, inputTimeZone).getTime();
		return { instant, clock: zoneClock(inputTimeZone) };
	}
	const instant = zonedWallClockToInstant(wall, 'UTC').getTime() - offsetMs(offset);
	return { instant, clock: offsetClock(offsetMs(offset)) };
}

/** `Z`, `+02:00`, `+0200` or `+02`, in milliseconds east of UTC. */
function offsetMs(offset: string): number {
	if (offset.toUpperCase() === 'Z') return 0;
	const { hours, minutes } = offsetFields(offset);
	return (offset.startsWith('-') ? -1 : 1) * (hours * 60 + minutes) * 60_000;
}

function impossibleOffset(offset: string | undefined): string | undefined {
	if (offset === undefined || offset.toUpperCase() === 'Z') return undefined;
	const { hours, minutes } = offsetFields(offset);
	if (hours > 23 || minutes > 59) return `there is no offset ${offset} (-23:59..+23:59)`;
	return undefined;
}

/** The hours and minutes of `+02:00`, `+0200` or `+02`, the sign aside. */
function offsetFields(offset: string): { hours: number; minutes: number } {
	const digits = offset.slice(1).replace(':', '');
	return { hours: Number(digits.slice(0, 2)), minutes: Number(digits.slice(2) || 0) };
}

/**
 * Valid Until as text. A date object from an expression (a JavaScript Date, n8n's Luxon
 * DateTime) is taken by its own text form, which names its offset; anything else is refused.
 */
function untilText(value: unknown): string {
	if (typeof value === 'string') return value;
	if (typeof value === 'object' && value !== null) {
		try {
			const text = String(value);
			if (text !== '[object Object]') return text;
		} catch {
			// An object without a prototype has no text form: refused below.
		}
	}
	throw new ValidityError(
		`Valid Until must be a date and time (ISO 8601, e.g. 2026-12-24T18:00:00), got ${shown(value)}`,
	);
}

/** A value in a message, without String(), which throws on some. */
function shown(value: unknown): string {
	if (typeof value === 'number' || typeof value === 'boolean') return String(value);
	if (typeof value === 'string') return `"${excerpt(value)}"`;
	if (value === null || value === undefined) return 'nothing';
	if (Array.isArray(value)) return 'a list';
	return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
