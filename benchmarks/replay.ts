/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * A bare server that answers get_status with bytes prepared in advance, so that a benchmark
 * measures the client alone (the sandbox itself spends 260–470 ms rendering 100,000 reports).
 * The answers are written as the interface describes them: JSON with bare 19-digit ids, or XML.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReplayAnswer {
	body: string;
	type: 'application/json' | 'application/xml';
}

export interface Replay {
	baseUrl: string;
	/** What get_status?batch_id=<id> answers from now on. */
	set(batchId: string, answer: ReplayAnswer): void;
	stop(): Promise<void>;
}

/**
 * `answerFor` writes the answer of a batch not `set` when it is asked for: a campaign of 10,000
 * batches of 1,000 reports would not fit in memory written in advance.
 */
export async function startReplay(
	answerFor: (batchId: string) => ReplayAnswer | undefined = () => undefined,
): Promise<Replay> {
	const answers = new Map<string, ReplayAnswer>();
	const server: Server = createServer((req, res) => {
		const batchId = new URL(req.url ?? '/', 'http://replay').searchParams.get('batch_id') ?? '';
		const answer = answers.get(batchId) ?? answerFor(batchId);
		if (!answer) {
			res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"error":"unknown batch"}');
			return;
		}
		res.writeHead(200, { 'Content-Type': answer.type }).end(answer.body);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}`,
		set: (batchId, answer) => answers.set(batchId, answer),
		stop: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

export interface ReportSpec {
	batchId: string;
	count: number;
	/** Share of reports already final (DELIVRD or UNDELIV); the rest are ENROUTE. */
	finalShare: number;
	/** First MSISDN; the others follow it. */
	firstMsisdn?: number;
}

interface Row {
	msisdn: string;
	status: string;
	session: string;
	/** Minutes after 2026-03-29 00:00, so that dates cross Berlin's spring-forward gap. */
	minute: number;
}

function rows(spec: ReportSpec): Row[] {
	const first = spec.firstMsisdn ?? 447700000000;
	const finals = Math.round(spec.count * spec.finalShare);
	return Array.from({ length: spec.count }, (_, i) => ({
		msisdn: String(first + i),
		status: i < finals ? (i % 10 === 6 ? 'UNDELIV' : 'DELIVRD') : 'ENROUTE',
		session: `${9_100_000_000_000_000_000n + BigInt(i)}`,
		minute: (i * 7) % 1440,
	}));
}

const pad = (n: number) => String(n).padStart(2, '0');

/** Hour and minute of a time on 2026-03-29. */
function clock(minute: number): [string, string] {
	return [pad(Math.floor(minute / 60)), pad(minute % 60)];
}

/** get_status as JSON: ids as bare numbers (beyond 2^53), dates `yyyy-MM-dd HH:mm:ss.S`. */
export function jsonAnswer(spec: ReportSpec): ReplayAnswer {
	const reports = rows(spec).map((row) => {
		const [hour, minute] = clock(row.minute);
		const date = row.status === 'ENROUTE' ? '' : `2026-03-29 ${hour}:${minute}:00.0`;
		return `{"msisdn":"${row.msisdn}","delivery_date":"${date}","network_id":23410,"status":"${row.status}","batch_id":${spec.batchId},"gateway_session_id":${row.session}}`;
	});
	return { body: `{"reports":[${reports.join(',')}]}`, type: 'application/json' };
}

/** The same reports as XML: sms_get_status > reports > delivery_report, dates `yyMMddHHmmss`. */
export function xmlAnswer(spec: ReportSpec): ReplayAnswer {
	const reports = rows(spec).map((row) => {
		const [hour, minute] = clock(row.minute);
		const date = row.status === 'ENROUTE' ? '' : `260329${hour}${minute}00`;
		return `<delivery_report><msisdn>${row.msisdn}</msisdn><delivery_date>${date}</delivery_date><network_id>23410</network_id><status>${row.status}</status><batch_id>${spec.batchId}</batch_id><gateway_session_id>${row.session}</gateway_session_id></delivery_report>`;
	});
	return {
		body: `<?xml version="1.0" encoding="UTF-8"?><sms_get_status><reports>${reports.join('')}</reports></sms_get_status>`,
		type: 'application/xml',
	};
}
