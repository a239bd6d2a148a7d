import { formatValidity, toIsoWithOffset, zonedWallClockToInstant } from './dates';

/** How long the service should keep trying to deliver a message. */
export type ValidityChoice =
	| { kind: 'serviceDefault' }
	| { kind: 'duration'; hours: number }
	| { kind: 'until'; value: string; inputTimeZone: string };

export interface Validity {
	/** As sent: yyMMddHHmmss in the service's time zone. */
	validity_period: string;
	/** The same instant, ISO 8601 with offset, for people. */
	valid_until: string;
}

export class ValidityError extends Error {}

const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?$/;

/**
 * Turns the user's choice into the absolute validity the service expects, or undefined for
 * the service's default (7 days). A time in the past is refused: the service would expire
 * every message at once while still charging for it.
 */
export function resolveValidity(
	choice: ValidityChoice,
	now: Date,
	serviceTimeZone: string,
): Validity | undefined {
	if (choice.kind === 'serviceDefault') return undefined;
	const until = choice.kind === 'duration' ? afterHours(now, choice.hours) : parseInstant(choice);
	if (until.getTime() <= now.getTime()) {
		throw new ValidityError(
			`The validity ends in the past (${until.toISOString()}): choose a later date or a positive duration`,
		);
	}
	return {
		validity_period: formatValidity(until, serviceTimeZone),
		valid_until: toIsoWithOffset(until, serviceTimeZone),
	};
}

function afterHours(now: Date, hours: number): Date {
	if (!Number.isFinite(hours) || hours <= 0) {
		throw new ValidityError(
			`The validity duration must be a positive number of hours (got ${hours})`,
		);
	}
	return new Date(now.getTime() + hours * 3_600_000);
}

/** A date with an offset is absolute; one without is read in the workflow's time zone, as n8n shows it. */
function parseInstant(choice: { value: string; inputTimeZone: string }): Date {
	const value = choice.value.trim();
	const local = LOCAL_DATE_TIME.exec(value);
	if (local) {
		const [, year, month, day, hour = '0', minute = '0', second = '0'] = local;
		return zonedWallClockToInstant(
			{ year: +year, month: +month, day: +day, hour: +hour, minute: +minute, second: +second },
			choice.inputTimeZone,
		);
	}
	const instant = Date.parse(value);
	if (value === '' || Number.isNaN(instant)) {
		throw new ValidityError(
			`"${value.slice(0, 40)}" is not a date and time: use ISO 8601, e.g. 2026-12-24T18:00:00 or 2026-12-24T18:00:00+01:00`,
		);
	}
	return new Date(instant);
}
