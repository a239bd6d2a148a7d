/**
 * What the Status Trigger remembers, and for how long, through n8n's webhook path: a repeat or a
 * late ENROUTE is told apart however many reports came in between (within the memory's size), and
 * every answer says what the workflow really got.
 */
import type { WebhookServer } from '../engine/webhook';
import { jsonReport, post, startTrigger } from './helpers';

let server: WebhookServer;
afterEach(() => server?.stop());

const message = (i: number) => ({
	msisdn: `4477${String(i).padStart(8, '0')}`,
	gateway_session_id: String(1_000_000_000_000_000n + BigInt(i)),
});

type Answer = { received: number; repeated: number; late: number; emitted: number };

/** Every answer, and every report the workflow was started with. */
const answers: Answer[] = [];
const emitted = () => server.executions().flatMap((items) => items.map((item) => item.json));

async function callback(body: string): Promise<Answer> {
	const res = await post(server, body);
	expect(res.status).toBe(200);
	const answer = JSON.parse(res.body) as Answer;
	answers.push(answer);
	return answer;
}

/** The final status of messages from..from+count, in callbacks of 1,000 reports. */
async function finals(from: number, count: number): Promise<void> {
	for (let at = from; at < from + count; at += 1000) {
		const size = Math.min(1000, from + count - at);
		const reports = Array.from({ length: size }, (_, i) => jsonReport(message(at + i)));
		await callback(`[${reports.join(',')}]`);
	}
}

beforeEach(() => (answers.length = 0));

it('tells a late ENROUTE and a repeat apart after 6,000 newer final reports, and says so truly', async () => {
	server = await startTrigger({ parameters: { emit: 'changes' } });
	await callback(jsonReport(message(0)));
	await finals(1, 6000);
	const late = await callback(jsonReport({ ...message(0), status: 'ENROUTE', delivery_date: '' }));
	const repeat = await callback(jsonReport(message(0)));
	expect([late, repeat]).toEqual([
		{ received: 1, repeated: 0, late: 1, emitted: 0 },
		{ received: 1, repeated: 1, late: 0, emitted: 0 },
	]);
	const once = emitted().filter((json) => json.msisdn === message(0).msisdn);
	expect(once.map((json) => json.status)).toEqual(['DELIVRD']);
	// What the answers said the workflow got is what it got.
	expect(answers.reduce((sum, answer) => sum + answer.emitted, 0)).toBe(emitted().length);
});
