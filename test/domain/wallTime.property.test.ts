/**
 * readWallTime reads the service's two date forms digit by digit when it can, and by the general
 * reader otherwise: both must agree with a plain model on any text shaped like a date.
 */
import fc from 'fast-check';

import { readWallTime } from '../../nodes/shared/domain/dates';

/** The model: the regular expressions of the interface's forms, and Date to check the fields. */
function model(text: string): number | null | 'problem' {
	const t = text.trim();
	if (t === '') return null;
	const json = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?$/.exec(t);
	const xml = /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(t);
	const fields = json
		? [...json.slice(1, 7).map(Number), Number((json[7] ?? '0').padEnd(3, '0'))]
		: xml
			? [2000 + Number(xml[1]), ...xml.slice(2, 7).map(Number), 0]
			: undefined;
	if (!fields) return 'problem';
	const [year, month, day, hour, minute, second, ms] = fields;
	const at = Date.UTC(year, month - 1, day, hour, minute, second, ms);
	const back = new Date(at);
	const real =
		back.getUTCFullYear() === year &&
		back.getUTCMonth() === month - 1 &&
		back.getUTCDate() === day &&
		hour < 24 &&
		minute < 60 &&
		second < 60;
	return real && year >= 2000 && year <= 2099 ? at : 'problem';
}

const digits = (length: number) =>
	fc
		.array(fc.constantFrom(...'0123456789'), { minLength: length, maxLength: length })
		.map((d) => d.join(''));

/** Texts of the two forms with any digits (most are impossible dates), and near misses. */
const dateLike = fc.oneof(
	fc
		.tuple(digits(4), digits(2), digits(2), digits(2), digits(2), digits(2), digits(1))
		.map(([y, mo, d, h, mi, s, t]) => `${y}-${mo}-${d} ${h}:${mi}:${s}.${t}`),
	fc
		.tuple(fc.integer({ min: 2000, max: 2099 }), fc.date({ noInvalidDate: true }))
		.map(([year, date]) => {
			const iso = new Date(
				Date.UTC(
					year,
					date.getUTCMonth(),
					date.getUTCDate(),
					date.getUTCHours(),
					date.getUTCMinutes(),
					date.getUTCSeconds(),
					date.getUTCMilliseconds(),
				),
			).toISOString();
			return `${iso.slice(0, 10)} ${iso.slice(11, 19)}.${iso[20]}`;
		}),
	// Month ends, where leap years and 30-day months decide.
	fc
		.tuple(
			fc.integer({ min: 1999, max: 2100 }),
			fc.integer({ min: 1, max: 12 }),
			fc.integer({ min: 27, max: 32 }),
			fc.boolean(),
		)
		.map(([year, month, day, xml]) => {
			const [y, m, d] = [
				String(year),
				String(month).padStart(2, '0'),
				String(day).padStart(2, '0'),
			];
			return xml ? `${y.slice(2)}${m}${d}235959` : `${y}-${m}-${d} 23:59:59.9`;
		}),
	digits(12),
	fc.tuple(digits(12), fc.constantFrom(' ', '', 'x', '-')).map(([d, extra]) => ` ${d}${extra}`),
	fc.string({ maxLength: 24 }),
);

it('agrees with the model on any date-like text', () => {
	fc.assert(
		fc.property(dateLike, (text) => {
			const read = readWallTime(text);
			const expected = model(text);
			if (expected === 'problem') return 'problem' in read;
			return 'wall' in read && read.wall === expected;
		}),
		{ seed: 20261123, numRuns: 20_000 },
	);
});
