import { readWallTime } from '../../nodes/shared/domain/dates';
import { isFinal, outcomeOf, STATUSES } from '../../nodes/shared/domain/status';
import { ResponseShapeError, type RawReport } from '../../nodes/shared/domain/responses';
import {
	shapeReport,
	summariseReports,
	type DeliveryReport,
} from '../../nodes/shared/domain/reports';

const raw = (status: string, delivery_date: string, msisdn = '447700900123'): RawReport => ({
	batch_id: '9007199254740993',
	msisdn,
	status,
	network_id: 12,
	gateway_session_id: '98765432109876543210',
	delivery_date,
	delivery_wall: wallOf(delivery_date),
});

function wallOf(text: string): number | null {
	const read = readWallTime(text);
	if ('problem' in read) throw new ResponseShapeError(read.problem);
	return read.wall;
}

describe('shapeReport', () => {
	it.each([
		[
			'DELIVRD',
			'2026-03-29 02:30:00.0',
			'Europe/Berlin',
			'delivered',
			true,
			'2026-03-29T03:30:00.000+02:00',
		],
		[
			'ACCEPTD',
			'261101013000',
			'America/New_York',
			'delivered',
			true,
			'2026-11-01T01:30:00.000-04:00',
		],
		['REJECTD', '260115120000', 'UTC', 'failed', true, '2026-01-15T12:00:00.000+00:00'],
		['ENROUTE', '', 'UTC', 'pending', false, null],
	])('%s %j in %s', (status, date, tz, outcome, final, iso) => {
		expect(shapeReport(raw(status, date), tz)).toEqual({
			batch_id: '9007199254740993',
			msisdn: '447700900123',
			status,
			outcome,
			final,
			network_id: 12,
			gateway_session_id: '98765432109876543210',
			delivery_date: iso,
			delivery_date_raw: date,
		});
	});
});

describe('shapeReport reads the status as status.ts does', () => {
	it.each([...STATUSES, 'delivrd', ' REJECTD ', 'SOMETHING_NEW', ''])('%j', (status) => {
		const shaped = shapeReport(raw(status, ''), 'UTC');
		expect([shaped.outcome, shaped.final]).toEqual([outcomeOf(status), isFinal(status)]);
	});
});

describe('summariseReports', () => {
	const shaped = (status: string, msisdn: string): DeliveryReport =>
		shapeReport(raw(status, status === 'ENROUTE' ? '' : '260115120000', msisdn), 'UTC');

	it.each([
		[
			'no reports yet: not all final',
			[],
			{
				total: 0,
				by_status: {},
				by_outcome: { delivered: 0, failed: 0, pending: 0 },
				all_final: false,
			},
		],
		[
			'mixed, one pending',
			[
				shaped('DELIVRD', '1'),
				shaped('ENROUTE', '2'),
				shaped('UNDELIV', '3'),
				shaped('DELIVRD', '4'),
			],
			{
				total: 4,
				by_status: { DELIVRD: 2, ENROUTE: 1, UNDELIV: 1 },
				by_outcome: { delivered: 2, failed: 1, pending: 1 },
				all_final: false,
			},
		],
		[
			'all final',
			[shaped('ACCEPTD', '1'), shaped('EXPIRED', '2'), shaped('UNKNOWN', '3')],
			{
				total: 3,
				by_status: { ACCEPTD: 1, EXPIRED: 1, UNKNOWN: 1 },
				by_outcome: { delivered: 1, failed: 2, pending: 0 },
				all_final: true,
			},
		],
		[
			'an unlisted code keeps the batch open',
			[shaped('DELIVRD', '1'), shaped('QUEUED', '2')],
			{
				total: 2,
				by_status: { DELIVRD: 1, QUEUED: 1 },
				by_outcome: { delivered: 1, failed: 0, pending: 1 },
				all_final: false,
			},
		],
	])('%s', (_name, reports, expected) => {
		expect(summariseReports('9007199254740993', reports)).toEqual({
			batch_id: '9007199254740993',
			...expected,
		});
	});
});
