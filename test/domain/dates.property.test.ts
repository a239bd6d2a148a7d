/**
 * The fast zone arithmetic (zoneOffsets.ts: offsets remembered per UTC day) against Intl asked
 * directly, on generated instants and wall times across zones, many of them within hours of a
 * DST change; and round trips between the service's two date forms. Seeded and bounded.
 */
import fc from 'fast-check';
import {
	formatValidity,
	readWallTime,
	toIsoWithOffset,
	wallToIso,
	zonedWallClockToInstant,
} from '../../nodes/shared/domain/dates';
import { resolveValidity, ValidityError } from '../../nodes/shared/domain/validity';

const SECOND = 1000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const FIRST = Date.UTC(2000, 0, 2);
const LAST = Date.UTC(2099, 11, 30);
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}$/;

/** Northern and southern DST, 30- and 45-minute offsets, a 2-hour DST, a skipped day (Apia 2011), permanent changes. */
const ZONES = [
	'UTC',
	'Europe/Berlin',
	'America/New_York',
	'Europe/London',
	'Europe/Dublin',
	'Europe/Moscow',
	'Australia/Lord_Howe',
	'Australia/Adelaide',
	'Pacific/Chatham',
	'Pacific/Apia',
	'Pacific/Kiritimati',
	'Asia/Kolkata',
	'Asia/Kathmandu',
	'Asia/Pyongyang',
	'America/St_Johns',
	'America/Santiago',
	'America/Caracas',
	'America/Sao_Paulo',
	'Africa/Casablanca',
	'Antarctica/Troll',
	'Etc/GMT+12',
];

// ---------------------------------------------------------------- the reference: Intl itself

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The wall clock Intl shows at `instant`, as milliseconds read as UTC. */
function intlWall(instant: number, zone: string): number {
	let format = formatters.get(zone);
	if (!format) {
		format = new Intl.DateTimeFormat('en-US', {
			timeZone: zone,
			hourCycle: 'h23',
			year: 'numeric',
			month: 'numeric',
			day: 'numeric',
			hour: 'numeric',
			minute: 'numeric',
			second: 'numeric',
		});
		formatters.set(zone, format);
	}
	const whole = Math.floor(instant / SECOND) * SECOND;
	const part: Record<string, number> = {};
	for (const { type, value } of format.formatToParts(new Date(whole))) part[type] = Number(value);
	const shown = Date.UTC(part.year, part.month - 1, part.day, part.hour, part.minute, part.second);
	return shown + (instant - whole);
}

const intlOffset = (instant: number, zone: string) => intlWall(instant, zone) - instant;

function referenceIso(instant: number, zone: string): string {
	const offset = intlOffset(instant, zone);
	const minutes = Math.round(Math.abs(offset) / 60_000);
	const hhmm = `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
	return `${new Date(instant + offset).toISOString().slice(0, -1)}${offset < 0 ? '-' : '+'}${hhmm}`;
}

/**
 * The earliest instant at which the zone's clocks show `wall`, found among every offset the zone
 * uses within two days (sampled every 3 hours: changes are months apart); in a gap (none shows it), the offset in force before the gap.
 */
function referenceInstant(wall: number, zone: string): number {
	const offsets = new Set<number>();
	for (let at = wall - 2 * DAY; at <= wall + 2 * DAY; at += 3 * HOUR) {
		offsets.add(intlOffset(at, zone));
	}
	const showing = [...offsets]
		.map((offset) => wall - offset)
		.filter((instant) => intlWall(instant, zone) === wall);
	return showing.length > 0 ? Math.min(...showing) : wall - intlOffset(wall - DAY, zone);
}

/**
 * Every offset change in a few years, found by Intl alone: 6-hour steps (changes are months
 * apart), then to the second.
 */
function changesOf(zone: string): number[] {
	const found: number[] = [];
	for (const year of [2011, 2026, 2099]) {
		const end = Date.UTC(year + 1, 0, 1);
		let before = intlOffset(Date.UTC(year, 0, 1), zone);
		for (let at = Date.UTC(year, 0, 1); at < end; at += 6 * HOUR) {
			const after = intlOffset(at + 6 * HOUR, zone);
			if (after !== before) found.push(firstSecondOf(after, at, at + 6 * HOUR, zone));
			before = after;
		}
	}
	return found;
}

function firstSecondOf(offset: number, from: number, to: number, zone: string): number {
	let [low, high] = [from, to];
	while (high - low > SECOND) {
		const middle = low + Math.floor((high - low) / 2 / SECOND) * SECOND;
		if (intlOffset(middle, zone) === offset) high = middle;
		else low = middle;
	}
	return high;
}

const changes = new Map<string, number[]>();
const changesIn = (zone: string) => {
	if (!changes.has(zone)) changes.set(zone, changesOf(zone));
	return changes.get(zone)!;
};

// ---------------------------------------------------------------- generators

const zone = fc.constantFrom(...ZONES);
const anyInstant = fc.integer({ min: FIRST, max: LAST });

/** An instant within 3 hours of one of the zone's offset changes (or any, in a zone without). */
const nearChange = (zoneName: string) =>
	fc
		.tuple(fc.nat(), fc.integer({ min: -3 * HOUR, max: 3 * HOUR }), anyInstant)
		.map(([pick, delta, fallback]) => {
			const list = changesIn(zoneName);
			return list.length === 0 ? fallback : list[pick % list.length] + delta;
		});

const instantIn = (zoneName: string) => fc.oneof(anyInstant, nearChange(zoneName));

/** A wall time as clocks show it near a change: the change's instant under either offset. */
const wallIn = (zoneName: string) =>
	fc
		.tuple(instantIn(zoneName), fc.boolean())
		.map(([instant, later]) => instant + intlOffset(instant + (later ? 4 : -4) * HOUR, zoneName));

const zoneAndInstant = zone.chain((z) => fc.tuple(fc.constant(z), instantIn(z)));
const zoneAndWall = zone.chain((z) => fc.tuple(fc.constant(z), wallIn(z)));

const clockOf = (wall: number) => {
	const d = new Date(wall);
	return {
		year: d.getUTCFullYear(),
		month: d.getUTCMonth() + 1,
		day: d.getUTCDate(),
		hour: d.getUTCHours(),
		minute: d.getUTCMinutes(),
		second: d.getUTCSeconds(),
		millisecond: d.getUTCMilliseconds(),
	};
};

/** `yyyy-MM-dd HH:mm:ss.S` as the service writes it (tenths only). */
const jsonForm = (wall: number) => new Date(wall).toISOString().replace('T', ' ').slice(0, 21);

// ---------------------------------------------------------------- properties

describe('zone arithmetic agrees with Intl', () => {
	it('offsets each zone has changes for the generators to aim at', () => {
		expect(changesIn('Europe/Berlin')).toHaveLength(6); // 3 years, 2 changes each
		expect(changesIn('Pacific/Apia')).toContain(Date.UTC(2011, 11, 30, 10)); // the skipped day
	});

	it('an instant shown in a zone', () => {
		fc.assert(
			fc.property(zoneAndInstant, ([z, instant]) => {
				const iso = toIsoWithOffset(new Date(instant), z);
				expect(iso).toBe(referenceIso(instant, z));
				expect(iso).toMatch(ISO);
			}),
			{ seed: 101, numRuns: 2000 },
		);
	});

	it('a wall time read in a zone: the earliest instant showing it, or moved forward past a gap', () => {
		fc.assert(
			fc.property(zoneAndWall, ([z, wall]) => {
				expect(zonedWallClockToInstant(clockOf(wall), z).getTime()).toBe(referenceInstant(wall, z));
			}),
			{ seed: 102, numRuns: 1000 },
		);
	});

	it('a delivery_date read at the edge and shown in a zone', () => {
		fc.assert(
			fc.property(zoneAndWall, ([z, generated]) => {
				const text = jsonForm(generated);
				const read = readWallTime(text);
				if (!('wall' in read) || read.wall === null) throw new Error(`not read: ${text}`);
				const iso = wallToIso(read.wall, z);
				expect(iso).toBe(referenceIso(referenceInstant(read.wall, z), z));
				expect(iso).toMatch(ISO);
			}),
			{ seed: 103, numRuns: 1000 },
		);
	});
});

describe('round trips between the service forms', () => {
	it('validity_period read back gives the same instant, or the earlier one showing the same clock', () => {
		fc.assert(
			fc.property(zoneAndInstant, ([z, instant]) => {
				const at = Math.floor(instant / SECOND) * SECOND;
				const period = formatValidity(new Date(at), z);
				const read = readWallTime(period);
				if (!('wall' in read) || read.wall === null) throw new Error(`not read: ${period}`);
				const back = Date.parse(wallToIso(read.wall, z));
				if (back !== at) {
					expect(back).toBeLessThan(at); // the repeated hour of a fall back
					expect(formatValidity(new Date(back), z)).toBe(period);
				}
			}),
			{ seed: 104, numRuns: 3000 },
		);
	});

	it('a date written from any fields is read back exactly, or refused: never rolled over', () => {
		const field = (max: number) => fc.integer({ min: 0, max });
		fc.assert(
			fc.property(
				fc.tuple(field(9999), field(99), field(99), field(99), field(99), field(99), field(9)),
				fc.boolean(),
				([year, month, day, hour, minute, second, tenth], xml) => {
					const two = (n: number) => String(n).padStart(2, '0');
					const text = xml
						? `${two(year % 100)}${two(month)}${two(day)}${two(hour)}${two(minute)}${two(second)}`
						: `${String(year).padStart(4, '0')}-${two(month)}-${two(day)} ${two(hour)}:${two(minute)}:${two(second)}.${tenth}`;
					const fullYear = xml ? 2000 + (year % 100) : year;
					const read = readWallTime(text);
					if ('problem' in read) {
						expect(read.problem).toMatch(/^delivery_date ".*" is (not a real date: |in the year )/);
						return;
					}
					const d = new Date(read.wall!);
					expect([
						d.getUTCFullYear(),
						d.getUTCMonth() + 1,
						d.getUTCDate(),
						d.getUTCHours(),
						d.getUTCMinutes(),
						d.getUTCSeconds(),
						d.getUTCMilliseconds(),
					]).toEqual([fullYear, month, day, hour, minute, second, xml ? 0 : tenth * 100]);
				},
			),
			{ seed: 105, numRuns: 5000 },
		);
	});

	it('readWallTime never throws, whatever the text', () => {
		fc.assert(
			fc.property(
				fc.oneof(fc.string(), fc.string({ unit: fc.constantFrom(...'0123456789-: .T') })),
				(text) => {
					const read = readWallTime(text);
					expect('wall' in read || read.problem.startsWith('delivery_date "')).toBe(true);
				},
			),
			{ seed: 106, numRuns: 5000 },
		);
	});
});

describe('resolveValidity on any input', () => {
	const now = new Date('2026-06-01T10:00:00Z');
	const dateLike = fc
		.tuple(
			fc.integer({ min: 0, max: 9999 }),
			fc.integer({ min: 0, max: 19 }),
			fc.integer({ min: 0, max: 39 }),
			fc.integer({ min: 0, max: 29 }),
			fc.integer({ min: 0, max: 69 }),
			fc.constantFrom('', 'Z', '+02:00', '-0530', '+25:00'),
		)
		.map(
			([y, mo, d, h, mi, offset]) =>
				`${String(y).padStart(4, '0')}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}T${String(h).padStart(2, '0')}:${String(mi).padStart(2, '0')}${offset}`,
		);
	const choice = fc.oneof(
		fc.double().map((hours) => ({ kind: 'duration' as const, hours })),
		fc.integer({ min: -10, max: 1_000_000 }).map((hours) => ({ kind: 'duration' as const, hours })),
		fc
			.anything({ withBigInt: true, withDate: true, withNullPrototype: true, maxDepth: 2 })
			.map((hours) => ({ kind: 'duration' as const, hours })),
		fc
			.tuple(
				fc.anything({ withBigInt: true, withDate: true, withNullPrototype: true, maxDepth: 2 }),
				zone,
			)
			.map(([value, inputTimeZone]) => ({ kind: 'until' as const, value, inputTimeZone })),
		fc
			.tuple(fc.oneof(fc.string(), dateLike), zone)
			.map(([value, inputTimeZone]) => ({ kind: 'until' as const, value, inputTimeZone })),
	);

	it('gives a validity whose period reads back to its valid_until, or a ValidityError: nothing else', () => {
		let resolved = 0;
		fc.assert(
			fc.property(choice, zone, (c, serviceZone) => {
				let validity;
				try {
					validity = resolveValidity(c, now, serviceZone);
				} catch (error) {
					expect(error).toBeInstanceOf(ValidityError);
					return;
				}
				resolved++;
				const read = readWallTime(validity!.validity_period);
				if (!('wall' in read) || read.wall === null) throw new Error('unreadable period');
				expect(wallToIso(read.wall, serviceZone).slice(0, 19)).toBe(
					validity!.valid_until.slice(0, 19),
				);
				expect(Date.parse(validity!.valid_until)).toBeGreaterThan(now.getTime());
			}),
			{ seed: 107, numRuns: 3000 },
		);
		// Not a property that holds because every choice was refused.
		expect(resolved).toBeGreaterThan(100);
	});
});
