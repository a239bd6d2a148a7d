/**
 * Reading a 100,000-report status answer: lossless JSON and XML against plain JSON.parse of the
 * same data (which rounds the ids, so it is the floor, not an alternative). Prints min and median
 * of several runs and the ratios. Run alone: npx tsx benchmarks/parsing.ts [runs]
 * The lead's `npm run bench` can call measureParsing() and use its figures.
 */
import { parseBody } from '../nodes/shared/domain/body';
import { readStatusAnswer } from '../nodes/shared/domain/responses';

/** Milliseconds per contender: wall time, and CPU time of the process (steadier on a busy machine). */
export interface ParsingFigures {
	jsonParse: Timing;
	losslessJson: Timing;
	xml: Timing;
	statusJson: Timing;
	statusXml: Timing;
}

export interface Timing {
	wall: Spread;
	cpu: Spread;
}

export interface Spread {
	min: number;
	median: number;
}

/** A status answer as the sandbox writes it, 19-digit ids and 17-digit session ids. */
export function statusAnswerTexts(reports: number): { json: string; xml: string } {
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

function spread(samples: number[]): Spread {
	const sorted = [...samples].sort((a, b) => a - b);
	return { min: sorted[0], median: sorted[Math.floor(sorted.length / 2)] };
}

function measure(work: () => unknown): { wall: number; cpu: number } {
	const cpuStart = process.cpuUsage();
	const start = process.hrtime.bigint();
	work();
	const wall = Number(process.hrtime.bigint() - start) / 1e6;
	const cpu = process.cpuUsage(cpuStart);
	return { wall, cpu: (cpu.user + cpu.system) / 1e3 };
}

/** Interleaves the contenders in every run, so a busy neighbour slows them all alike. */
export function measureParsing(reports = 100_000, runs = 5): ParsingFigures {
	const { json, xml } = statusAnswerTexts(reports);
	const contenders: Array<[keyof ParsingFigures, () => unknown]> = [
		['jsonParse', () => JSON.parse(json)],
		['losslessJson', () => parseBody(json)],
		['xml', () => parseBody(xml)],
		['statusJson', () => readStatusAnswer(json)],
		['statusXml', () => readStatusAnswer(xml)],
	];
	const samples = new Map<keyof ParsingFigures, { wall: number[]; cpu: number[] }>(
		contenders.map(([name]) => [name, { wall: [], cpu: [] }]),
	);
	// One warm-up round, not counted: the first call compiles the code paths.
	for (const [, work] of contenders) work();
	for (let run = 0; run < runs; run++) {
		for (const [name, work] of contenders) {
			const taken = measure(work);
			samples.get(name)?.wall.push(taken.wall);
			samples.get(name)?.cpu.push(taken.cpu);
		}
	}
	const timing = (name: keyof ParsingFigures): Timing => {
		const of = samples.get(name) ?? { wall: [], cpu: [] };
		return { wall: spread(of.wall), cpu: spread(of.cpu) };
	};
	return {
		jsonParse: timing('jsonParse'),
		losslessJson: timing('losslessJson'),
		xml: timing('xml'),
		statusJson: timing('statusJson'),
		statusXml: timing('statusXml'),
	};
}

function printFigures(figures: ParsingFigures, reports: number, runs: number): void {
	console.log(`Reading a ${reports.toLocaleString('en')}-report status answer, ${runs} runs`);
	const row = (label: string, timing: Timing) => {
		const cells = (['wall', 'cpu'] as const).map((clock) => {
			const own = timing[clock];
			const base = figures.jsonParse[clock];
			const ratio = `x${(own.min / base.min).toFixed(2)}/x${(own.median / base.median).toFixed(2)}`;
			return `${clock} ${own.min.toFixed(1)}/${own.median.toFixed(1)} ms ${ratio}`;
		});
		console.log(`${label.padEnd(30)} ${cells.join('   ')}`);
	};
	console.log('(min/median of the runs; ratios against JSON.parse of the same text, min/median)');
	row('JSON.parse (rounds the ids)', figures.jsonParse);
	row('lossless JSON (parseBody)', figures.losslessJson);
	row('XML (parseBody)', figures.xml);
	row('readStatusAnswer, JSON', figures.statusJson);
	row('readStatusAnswer, XML', figures.statusXml);
}

if (require.main === module) {
	const runs = Math.max(3, Number(process.argv[2] ?? 5) || 5);
	const reports = 100_000;
	printFigures(measureParsing(reports, runs), reports, runs);
}
