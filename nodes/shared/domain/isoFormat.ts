/**
 * ISO 8601 with an offset, `2026-03-29T03:30:00.000+02:00`, written by arithmetic (isoLocal).
 * Checked against Intl with every date the zone arithmetic shows, in
 * test/domain/dates.property.test.ts ("an instant shown in a zone").
 */
import { DAY } from './wallClock';

/** The instant on the wall clock `offset` milliseconds from UTC, with that offset. */
export function isoWithOffset(instant: number, offset: number): string {
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
 * `toISOString()` without the `Z`, by arithmetic: toISOString was most of the cost of shaping a
 * report (docs/benchmarks.md, "Dates by arithmetic"). Days to a civil date as in Howard
 * Hinnant's `civil_from_days`.
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

const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));

export function pad2(n: number): string {
	return TWO_DIGITS[n] ?? String(n).padStart(2, '0');
}

function pad3(n: number): string {
	return n < 10 ? `00${n}` : n < 100 ? `0${n}` : String(n);
}

function pad4(n: number): string {
	return n < 1000 ? String(n).padStart(4, '0') : String(n);
}
