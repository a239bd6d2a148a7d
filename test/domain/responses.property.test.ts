/**
 * The same reports, answered in JSON and in XML, read to the same RawReports (seeded
 * fast-check): ids exact and in the service's form, every field read once by one reader.
 */
import fc from 'fast-check';

import { batchIdDigits } from '../../nodes/shared/domain/batchId';
import { readStatusAnswer, type RawReport } from '../../nodes/shared/domain/responses';

interface Report {
	batchId: string;
	session: string;
	msisdn: string;
	status: string;
	network: number;
	/** [JSON form, XML form] of one wall-clock time, or ['', ''] while en route. */
	date: [string, string];
}

const digits = (min: number, max: number) =>
	fc.stringMatching(new RegExp(`^[0-9]{${min},${max}}$`));

const wallTime = fc
	.record({
		year: fc.integer({ min: 2000, max: 2099 }),
		month: fc.integer({ min: 1, max: 12 }),
		day: fc.integer({ min: 1, max: 28 }),
		hour: fc.integer({ min: 0, max: 23 }),
		minute: fc.integer({ min: 0, max: 59 }),
		second: fc.integer({ min: 0, max: 59 }),
	})
	.map(({ year, month, day, hour, minute, second }): [string, string] => {
		const two = (n: number) => String(n).padStart(2, '0');
		return [
			`${year}-${two(month)}-${two(day)} ${two(hour)}:${two(minute)}:${two(second)}.0`,
			`${two(year % 100)}${two(month)}${two(day)}${two(hour)}${two(minute)}${two(second)}`,
		];
	});

const report: fc.Arbitrary<Report> = fc.record({
	// Leading zeros too: the service's form drops them, in JSON and XML alike.
	batchId: fc.oneof(
		digits(1, 19),
		digits(17, 19),
		fc.constantFrom('0', '00042', '9223372036854775807'),
	),
	session: digits(1, 25),
	msisdn: fc.stringMatching(/^0{0,2}[1-9][0-9]{6,14}$/),
	status: fc.constantFrom('DELIVRD', 'ENROUTE', 'undeliv', 'Rejectd'),
	network: fc.integer({ min: 0, max: 99999 }),
	date: fc.oneof(wallTime, fc.constant<[string, string]>(['', ''])),
});

/** A JSON id: bare digits when they are a valid JSON number, else a string. */
const jsonId = (id: string) => (/^(?:0|[1-9]\d*)$/.test(id) ? id : `"${id}"`);

function jsonAnswer(reports: Report[]): string {
	const items = reports.map(
		(r) =>
			`{"batch_id":${jsonId(r.batchId)},"msisdn":"${r.msisdn}","status":"${r.status}",` +
			`"network_id":${r.network},"gateway_session_id":${jsonId(r.session)},"delivery_date":"${r.date[0]}"}`,
	);
	return `{"reports":[${items.join(',')}]}`;
}

function xmlAnswer(reports: Report[]): string {
	const items = reports.map(
		(r) =>
			`<delivery_report><msisdn>${r.msisdn}</msisdn><delivery_date>${r.date[1]}</delivery_date>` +
			`<network_id>${r.network}</network_id><status>${r.status}</status>` +
			`<batch_id>${r.batchId}</batch_id><gateway_session_id>${r.session}</gateway_session_id></delivery_report>`,
	);
	return `<?xml version="1.0"?><sms_get_status><reports>${items.join('')}</reports></sms_get_status>`;
}

/** Everything but the date's raw text, which differs by format as the interface says (toEqual
 * leaves out a field set to undefined). */
const comparable = (report: RawReport) => ({ ...report, delivery_date: undefined });

describe('readStatusAnswer: JSON and XML of the same reports agree', () => {
	it('same reports, ids exact, batch ids in the service form', () => {
		fc.assert(
			fc.property(fc.array(report, { maxLength: 5 }), (reports) => {
				const fromJson = readStatusAnswer(jsonAnswer(reports));
				const fromXml = readStatusAnswer(xmlAnswer(reports));
				expect(fromJson.map(comparable)).toEqual(fromXml.map(comparable));
				fromJson.forEach((read, index) => {
					const given = reports[index];
					expect(read.batch_id).toBe(batchIdDigits(given.batchId));
					// Exactly as written, of any length (leading zeros come as JSON strings).
					expect(read.gateway_session_id).toBe(given.session);
					expect(read.status).toBe(given.status.toUpperCase());
					expect(read.msisdn).toBe(given.msisdn); // text: leading zeros kept
					expect(read.network_id).toBe(given.network);
					// The wall-clock time as if in UTC (the zone is applied when shown), by Date's reader.
					const [json] = given.date;
					expect(read.delivery_wall).toBe(
						json === '' ? null : Date.parse(`${json.replace(' ', 'T')}Z`),
					);
				});
			}),
			{ seed: 20261123, numRuns: 1_000 },
		);
	});
});
