/**
 * Benchmarks: figures and ratios against a baseline measured in the same run, never asserted
 * in tests. Run: npm run bench
 *
 * 1. Reading a 100,000-report status answer: lossless JSON and XML against plain JSON.parse
 *    (which corrupts the ids), then shaping every report (dates in the service's zone).
 * 2. Sending 10,000 destinations through the BulkSms node in n8n's engine (combined batch,
 *    1,000 per request) against raw HTTP posts of the same requests to the same sandbox.
 * 3. The trigger's change detection on a 100,000-destination batch: time per poll and the size
 *    of its stored state, against the obvious design (every number's last status in a map).
 */
import { parseBody } from '../nodes/shared/domain/body';
import { shapeReport } from '../nodes/shared/domain/reports';
import { readStatusResponse } from '../nodes/shared/domain/responses';
import {
	advance,
	emptyState,
	type StatusReport,
	type WatchState,
} from '../nodes/shared/domain/watch';
import { startSandbox } from '../sandbox/server';
import { BULK_SMS, MANUAL_TRIGGER, outputOf, runWorkflow } from '../test/engine/harness';

const REPORTS = 100_000;
const DESTINATIONS = 10_000;
const PER_REQUEST = 1_000;

function timed<T>(work: () => T): [T, number] {
	const start = process.hrtime.bigint();
	const result = work();
	return [result, Number(process.hrtime.bigint() - start) / 1e6];
}

async function timedAsync<T>(work: () => Promise<T>): Promise<[T, number]> {
	const start = process.hrtime.bigint();
	const result = await work();
	return [result, Number(process.hrtime.bigint() - start) / 1e6];
}

function line(label: string, ms: number, baselineMs?: number, extra = ''): void {
	const ratio = baselineMs ? `  x${(ms / baselineMs).toFixed(2)} of baseline` : '  (baseline)';
	console.log(`${label.padEnd(44)} ${ms.toFixed(1).padStart(9)} ms${ratio}${extra}`);
}

function statusAnswers(): { json: string; xml: string } {
	const json: string[] = [];
	const xml: string[] = [];
	for (let i = 0; i < REPORTS; i++) {
		const msisdn = `4477009${String(i).padStart(5, '0')}`;
		const session = (18014398509481985n + 2n * BigInt(i)).toString();
		json.push(
			`{"batch_id":9007199254740993,"network_id":23410,"status":"DELIVRD","msisdn":"${msisdn}","gateway_session_id":${session},"delivery_date":"2026-11-22 10:15:0${i % 10}.0"}`,
		);
		xml.push(
			`<delivery_report><msisdn>${msisdn}</msisdn><delivery_date>26112210150${i % 10}</delivery_date><network_id>23410</network_id><status>DELIVRD</status><batch_id>9007199254740993</batch_id><gateway_session_id>${session}</gateway_session_id></delivery_report>`,
		);
	}
	return {
		json: `{"reports":[${json.join(',')}]}`,
		xml: `<?xml version="1.0"?><sms_get_status><reports>${xml.join('')}</reports></sms_get_status>`,
	};
}

function readingReports(): void {
	console.log(`\n1. A status answer of ${REPORTS.toLocaleString('en')} reports`);
	const { json, xml } = statusAnswers();
	const [, baseline] = timed(() => JSON.parse(json));
	const [lossless, jsonMs] = timed(() => parseBody(json));
	const [fromXml, xmlMs] = timed(() => parseBody(xml));
	line('JSON.parse (loses the ids)', baseline);
	line('lossless JSON (parseBody)', jsonMs, baseline);
	line('XML (parseBody)', xmlMs, baseline);
	const [raw, readMs] = timed(() => readStatusResponse(lossless?.data));
	readStatusResponse(fromXml?.data);
	line('readStatusResponse', readMs, baseline);
	for (const zone of ['UTC', 'Europe/Berlin']) {
		const [, shapeMs] = timed(() => raw.map((report) => shapeReport(report, zone)));
		line(
			`shapeReport x ${REPORTS} (${zone})`,
			shapeMs,
			baseline,
			`  ${((shapeMs * 1000) / REPORTS).toFixed(1)} us/report`,
		);
	}
	const heapMb = process.memoryUsage().heapUsed / 2 ** 20;
	console.log(
		`heap used after: ${heapMb.toFixed(0)} MB (answer text ${(json.length / 2 ** 20).toFixed(1)} MB)`,
	);
}

async function sending(): Promise<void> {
	console.log(
		`\n2. Sending to ${DESTINATIONS.toLocaleString('en')} destinations, ${PER_REQUEST} per request`,
	);
	const sandbox = await startSandbox({
		accounts: [{ username: 'demo', password: 'demo-password', credits: 10 * DESTINATIONS }],
	});
	try {
		// Different numbers for each leg, so the sandbox's counts show the node sent each once.
		const numbersFrom = (prefix: string) =>
			Array.from({ length: DESTINATIONS }, (_, i) => `${prefix}${String(i).padStart(8, '0')}`);
		const rawNumbers = numbersFrom('4478');
		const numbers = numbersFrom('4477');
		const auth = `Basic ${Buffer.from('demo:demo-password').toString('base64')}`;
		const [, baseline] = await timedAsync(async () => {
			for (let start = 0; start < numbers.length; start += PER_REQUEST) {
				const body = new URLSearchParams({
					destination: rawNumbers.slice(start, start + PER_REQUEST).join(','),
					message: 'Hi',
				});
				const answer = await fetch(`${sandbox.baseUrl}/api/sms/send`, {
					method: 'POST',
					body,
					headers: { Authorization: auth, Accept: 'application/json' },
				});
				await answer.text();
			}
		});
		line('raw HTTP posts', baseline);
		const [run, nodeMs] = await timedAsync(() =>
			runWorkflow({
				nodes: [
					{
						id: 'a',
						name: 'Start',
						type: MANUAL_TRIGGER,
						typeVersion: 1,
						position: [0, 0],
						parameters: {},
					},
					{
						id: 'b',
						name: 'Send',
						type: BULK_SMS,
						typeVersion: 1,
						position: [200, 0],
						parameters: {
							operation: 'send',
							destinations: numbers.join('\n'),
							message: 'Hi',
							sendOptions: { maxPerRequest: PER_REQUEST },
						},
					},
				],
				connections: { Start: { main: [[{ node: 'Send', type: 'main', index: 0 }]] } },
				credentials: {
					bulkSmsApi: {
						baseUrl: sandbox.baseUrl,
						username: 'demo',
						password: 'demo-password',
						timeZone: 'UTC',
					},
				},
			}),
		);
		const batches = outputOf(run, 'Send');
		line('BulkSms Send in WorkflowExecute', nodeMs, baseline, `  ${batches.length} batches`);
		const sent = sandbox.received().destinations.filter((d) => d.msisdn.startsWith('4477'));
		const once = sent.filter((d) => d.accepted === 1).length;
		console.log(`node's destinations accepted exactly once: ${once} of ${DESTINATIONS}`);
	} finally {
		await sandbox.stop();
	}
}

/** Distinct 12-digit UK mobile numbers, spread as a real list is (seeded: same figures each run). */
function mobileNumbers(count: number): string[] {
	const numbers = new Set<string>();
	let seed = 42;
	while (numbers.size < count) {
		seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; // 32-bit, so exact
		numbers.add(`447${String(seed % 1e9).padStart(9, '0')}`);
	}
	return [...numbers];
}

/** The obvious design: every number's last status, compared one by one. */
function naiveChanges(last: Record<string, string>, reports: StatusReport[]): StatusReport[] {
	const changed = reports.filter((report) => last[report.msisdn] !== report.status);
	for (const report of changed) last[report.msisdn] = report.status;
	return changed;
}

function watching(): void {
	console.log(
		`\n3. The trigger watching one batch of ${REPORTS.toLocaleString('en')} destinations`,
	);
	const numbers = mobileNumbers(REPORTS);
	const polls = [
		{ label: 'first poll, all en route', delivered: 0 },
		{ label: 'half delivered', delivered: REPORTS / 2 },
		{ label: 'no change', delivered: REPORTS / 2 },
	];
	const batchId = '9007199254740993';
	const options = { mode: 'changes', statuses: [], emitExisting: false } as const;
	let state: WatchState = emptyState();
	const naive: Record<string, string> = {};
	for (const poll of polls) {
		const reports = numbers.map((msisdn, i) => ({
			msisdn,
			status: i < poll.delivered ? 'DELIVRD' : 'ENROUTE',
		}));
		const [, baseline] = timed(() => naiveChanges(naive, reports));
		const fetched = new Map([[batchId, reports]]);
		const [step, ms] = timed(() => advance(state, [batchId], fetched, options));
		state = step.state;
		const stored = JSON.stringify(state).length;
		const naiveStored = JSON.stringify(naive).length;
		const pending = REPORTS - poll.delivered;
		line(`${poll.label}: naive map diff`, baseline);
		line(
			`${poll.label}: advance`,
			ms,
			baseline,
			`  ${step.reports.length} emitted; state ${(stored / 1024).toFixed(0)} kB = ${(stored / pending).toFixed(2)} B per pending report (naive ${(naiveStored / 1024).toFixed(0)} kB, x${(stored / naiveStored).toFixed(2)})`,
		);
	}
}

async function main(): Promise<void> {
	readingReports();
	await sending();
	watching();
}

void main();
