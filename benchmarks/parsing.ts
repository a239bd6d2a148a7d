/**
 * Reading a 100,000-report status answer: lossless JSON and XML against plain JSON.parse of the
 * same data (which rounds the ids, so it is the floor, not an alternative), and the whole
 * readStatusAnswer (parse + every field read once, dates included) against the same floor.
 * Wall time is what the figures compare; the process's CPU time (all threads, GC included) is
 * given beside it as `cpu_ratio_*`, steadier when the machine is shared.
 * Alone: npx tsx benchmarks/parsing.ts [runs]
 */
import { parseBody } from '../nodes/shared/domain/body';
import { readStatusAnswer } from '../nodes/shared/domain/responses';
import { median, printFigure, type Figure } from './figures';

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

interface Samples {
	wall: number[];
	cpu: number[];
}

function measure(work: () => unknown, into: Samples): void {
	const cpuStart = process.cpuUsage();
	const start = process.hrtime.bigint();
	work();
	into.wall.push(Number(process.hrtime.bigint() - start) / 1e6);
	const cpu = process.cpuUsage(cpuStart);
	into.cpu.push((cpu.user + cpu.system) / 1e3);
}

/** Interleaves the contenders in every run, so a busy neighbour slows them all alike. */
export async function figures(runs = 5): Promise<Figure[]> {
	const { json, xml } = statusAnswerTexts(REPORTS);
	const contenders: Record<string, () => unknown> = {
		baseline: () => JSON.parse(json),
		parse_json_100k: () => parseBody(json),
		parse_xml_100k: () => parseBody(xml),
		read_status_json_100k: () => readStatusAnswer(json),
		read_status_xml_100k: () => readStatusAnswer(xml),
	};
	const samples = new Map(Object.keys(contenders).map((name) => [name, { wall: [], cpu: [] }]));
	// One warm-up round, not counted: the first call compiles the code paths.
	for (const work of Object.values(contenders)) work();
	for (let run = 0; run < runs; run++) {
		for (const [name, work] of Object.entries(contenders)) {
			measure(work, samples.get(name) as Samples);
		}
	}
	const baseline = samples.get('baseline') as Samples;
	const figure = (scenario: string, label: string): Figure => {
		const own = samples.get(scenario) as Samples;
		return {
			scenario,
			label,
			measured: own.wall,
			baseline: baseline.wall,
			extra: {
				cpu_ratio_median: median(own.cpu) / median(baseline.cpu),
				cpu_ratio_min: Math.min(...own.cpu) / Math.min(...baseline.cpu),
			},
		};
	};
	return [
		figure('parse_json_100k', 'lossless JSON, 100,000 reports, vs JSON.parse'),
		figure('parse_xml_100k', 'XML, 100,000 reports, vs JSON.parse of the same data'),
		figure('read_status_json_100k', 'readStatusAnswer JSON (parse + fields) vs JSON.parse'),
		figure('read_status_xml_100k', 'readStatusAnswer XML (parse + fields) vs JSON.parse'),
	];
}

if (require.main === module) {
	const runs = Math.max(3, Number(process.argv[2] ?? 5) || 5);
	void figures(runs).then((all) => all.forEach(printFigure));
}
