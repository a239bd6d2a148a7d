import {
	LAST_YEAR,
	formatValidity,
	toIsoWithOffset,
	whatIsImpossible,
	zonedWallClockToInstant,
} from './dates';
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
const WRITTEN_OFFSET = /\b(?:GMT|UTC)\b|[+-]\d{4}\b/;

/**
 * Turns the user's choice into the absolute validity the service expects, or undefined for
 * the service's default (7 days). A time in the past is refused: the service would expire
 * every message at once while still charging for it. So is a time after 2099, which
 * yyMMddHHmmss cannot carry.
 */
export function resolveValidity(
	choice: ValidityChoice,
	now: Date,
	serviceTimeZone: string,
): Validity | undefined {
	if (choice.kind === 'serviceDefault') return undefined;
	const asked = choice.kind === 'duration' ? afterHours(now, choice.hours) : parseInstant(choice);
	// yyMMddHHmmss has whole seconds: what the service is told is the second that began.
	const until = Math.floor(asked / 1000) * 1000;
	if (until <= now.getTime() && choice.kind === 'duration') {
		throw new ValidityError(
			`A validity of ${choice.hours} hours ends before the next whole second, the smallest step validity_period (yyMMddHHmmss) carries: choose a longer duration`,
		);
	}
	if (until <= now.getTime()) {
		throw new ValidityError(
			`The validity ends in the past (${new Date(until).toISOString()}): choose a later date or a positive duration`,
		);
	}
	const latest = latestValidity(serviceTimeZone);
	if (until > latest) {
		const what =
			choice.kind === 'duration' ? `A validity of ${choice.hours} hours` : 'The validity';
		throw new ValidityError(
			`${what} ends after ${toIsoWithOffset(new Date(latest), serviceTimeZone)}, the last time validity_period (yyMMddHHmmss) can carry: choose an earlier date or fewer hours`,
		);
	}
	const at = new Date(until);
	return {
		validity_period: formatValidity(at, serviceTimeZone),
		valid_until: toIsoWithOffset(at, serviceTimeZone),
	};
}

/** The last second of LAST_YEAR on the service's clock. */
function latestValidity(serviceTimeZone: string): number {
	const last = { year: LAST_YEAR, month: 12, day: 31, hour: 23, minute: 59, second: 59 };
	return zonedWallClockToInstant(last, serviceTimeZone).getTime();
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

/** A date with an offset is absolute; one without is read in the workflow's time zone, as n8n shows it. */
function parseInstant(choice: { value: unknown; inputTimeZone: string }): number {
	const value = untilText(choice.value).trim();
	const iso = ISO_DATE_TIME.exec(value);
	if (iso) return isoInstant(iso, value, choice.inputTimeZone);
	const written = WRITTEN_OFFSET.test(value) ? Date.parse(value) : Number.NaN;
	if (Number.isNaN(written)) {
		throw new ValidityError(
			`"${excerpt(value)}" is not a date and time: use ISO 8601, e.g. 2026-12-24T18:00:00 or 2026-12-24T18:00:00+01:00`,
		);
	}
	return written;
}

function isoInstant(fields: RegExpExecArray, value: string, inputTimeZone: string): number {
	const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '0', offset] =
		fields;
	const clock: WallClock = {
		year: +year,
		month: +month,
		day: +day,
		hour: +hour,
		minute: +minute,
		second: +second,
		millisecond: Math.floor(Number(`0.${fraction}`) * 1000),
	};
	const impossible = whatIsImpossible(clock) ?? impossibleOffset(offset);
	if (impossible) {
		throw new ValidityError(`"${excerpt(value)}" is not a real date and time: ${impossible}`);
	}
	if (offset === undefined) return zonedWallClockToInstant(clock, inputTimeZone).getTime();
	return zonedWallClockToInstant(clock, 'UTC').getTime() - offsetMs(offset);
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
