/**
 * Shaping delivery reports in a time zone: µs per report for shapeReport in UTC, Europe/Berlin
 * and America/New_York, and the ratio of Berlin to UTC. A figure, never asserted in tests.
 *
 * The dates span two days around a DST change in both zones (as a busy batch's reports do
 * around a change), with seconds and tenths varying, so a per-day cache must handle a change
 * inside the data.
 */
import { readWallTime } from '../nodes/shared/domain/dates';
import { shapeReport } from '../nodes/shared/domain/reports';
import type { RawReport } from '../nodes/shared/domain/responses';
import { inRounds, QUICK_ROUNDS, type Figure } from './figures';

const REPORTS = 100_000;

function reportsAround(day: string): RawReport[] {
	const start = Date.parse(`${day}T00:00:00Z`) - 86_400_000;
	const reports: RawReport[] = [];
	for (let i = 0; i < REPORTS; i++) {
		const at = new Date(start + Math.floor((i / REPORTS) * 2 * 86_400_000) + (i % 10) * 100);
		const text = at.toISOString().replace('T', ' ').slice(0, 21);
		const read = readWallTime(text);
		if ('problem' in read) throw new Error(read.problem);
		reports.push({
			batch_id: '9007199254740993',
			msisdn: `4477009${String(i).padStart(5, '0')}`,
			status: 'DELIVRD',
			network_id: 23410,
			gateway_session_id: String(18014398509481985n + BigInt(i)),
			delivery_date: text,
			delivery_wall: read.wall,
		});
	}
	return reports;
}

function shapeAll(reports: readonly RawReport[], zone: string): void {
	let sink = 0;
	for (const report of reports) sink += shapeReport(report, zone).delivery_date?.length ?? 0;
	if (sink === 0) throw new Error('nothing shaped');
}

/** Berlin and New York against UTC, in rounds so a busy neighbour slows all alike. */
export async function figures(): Promise<Figure[]> {
	// 2026-10-25: Europe's fall back; 2026-03-08: New York's spring forward.
	const europe = reportsAround('2026-10-25');
	const america = reportsAround('2026-03-08');
	// The warm-up round fills each zone's memo of offsets.
	const timed = await inRounds(
		{
			UTC: () => shapeAll(europe, 'UTC'),
			'Europe/Berlin': () => shapeAll(europe, 'Europe/Berlin'),
			'America/New_York': () => shapeAll(america, 'America/New_York'),
		},
		QUICK_ROUNDS,
	);
	const microsPerReport = (zone: keyof typeof timed) =>
		timed[zone].figures.map((ms) => (ms * 1000) / REPORTS);
	const against = (scenario: string, zone: keyof typeof timed): Figure => ({
		scenario,
		label: `shapeReport in ${zone} vs UTC, ${REPORTS.toLocaleString('en')} reports around DST`,
		measured: microsPerReport(zone),
		baseline: microsPerReport('UTC'),
		unit: 'µs/report',
	});
	return [
		against('shape_berlin_vs_utc', 'Europe/Berlin'),
		against('shape_new_york_vs_utc', 'America/New_York'),
	];
}
