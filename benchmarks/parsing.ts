/**
 * Reading a 100,000-report status answer: lossless JSON and XML against plain JSON.parse of the
 * same data (which rounds the ids, so it is the floor, not an alternative), and the whole
 * readStatusAnswer (parse + every field read once, dates included) against the same floor.
 * Wall time is what the figures compare; the process's CPU time (all threads, GC included) is
 * given beside it as `cpu_ratio_*`, steadier when the machine is shared.
 */
import { parseBody } from '../nodes/shared/domain/body';
import { readStatusAnswer } from '../nodes/shared/domain/responses';
import { inRounds, median, QUICK_ROUNDS, roundRatios, type Figure } from './figures';

const REPORTS = 100_000;

/** A status answer as the sandbox writes it, 19-digit batch ids and 17-digit session ids. */
function statusAnswerTexts(reports: number): { json: string; xml: string } {
	const json: string[] = [];
	const xml: string[] = [];
	for (let i = 0; i < reports; i++) {
		const msisdn = `4477009${String(i).padStart(5, '0')}`;
		const session = (18014398509481985n + 2n * BigInt(i)).toString();
		const second = i % 10;
		json.push(
			`{"batch_id":1234567890123456789,"network_id":23410,"status":"DELIVRD","msisdn":"${msisdn}",` +
				`"gateway_session_id":${session},"delivery_date":"2026-11-22 10:15:0${second}.0"}`,
		);
		xml.push(
			`<delivery_report><msisdn>${msisdn}</msisdn><delivery_date>26112210150${second}</delivery_date>` +
				'<network_id>23410</network_id><status>DELIVRD</status><batch_id>1234567890123456789</batch_id>' +
				`<gateway_session_id>${session}</gateway_session_id></delivery_report>`,
		);
	}
	return {
		json: `{"reports":[${json.join(',')}]}`,
		xml: `<?xml version="1.0" encoding="UTF-8"?>\n<sms_get_status><reports>${xml.join('')}</reports></sms_get_status>`,
	};
}

/** Every contender in every round, so a busy neighbour slows them all alike. */
export async function figures(): Promise<Figure[]> {
	const { json, xml } = statusAnswerTexts(REPORTS);
	const timed = await inRounds(
		{
			baseline: () => JSON.parse(json),
			parse_json_100k: () => parseBody(json),
			parse_xml_100k: () => parseBody(xml),
			read_status_json_100k: () => readStatusAnswer(json),
			read_status_xml_100k: () => readStatusAnswer(xml),
		},
		QUICK_ROUNDS,
	);
	const figure = (scenario: Exclude<keyof typeof timed, 'baseline'>, label: string): Figure => ({
		scenario,
		label,
		measured: timed[scenario].figures,
		baseline: timed.baseline.figures,
		extra: { cpu_ratio_median: median(roundRatios(timed[scenario].cpu, timed.baseline.cpu)) },
	});
	return [
		figure('parse_json_100k', 'lossless JSON, 100,000 reports, vs JSON.parse'),
		figure('parse_xml_100k', 'XML, 100,000 reports, vs JSON.parse of the same data'),
		figure('read_status_json_100k', 'readStatusAnswer JSON (parse + fields) vs JSON.parse'),
		figure('read_status_xml_100k', 'readStatusAnswer XML (parse + fields) vs JSON.parse'),
	];
}
