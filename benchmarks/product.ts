/* eslint-disable
	@n8n/community-nodes/no-hardcoded-secrets
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * The Bulk SMS node beside what a user would build from n8n's own nodes instead, in one real
 * `n8n start` (n8nStart.ts), against the sandbox with 20 ms latency, on a fresh sandbox for
 * every leg:
 * - 5,000 personalised rows, one request each: Send with its defaults (8 requests in flight) vs
 *   HTTP Request with its own (every request as soon as its item is read); a third leg, Send
 *   with Concurrent Requests 32 (its highest), shows what raising it buys;
 * - 100,000 rows, one message: Send with Combine All Items Into One Batch vs a Code node that
 *   joins 1,000 numbers per item, then HTTP Request; the same with an expression that reads
 *   nothing of the row in Send's options, which Send reads once (Campaign `{{ $execution.id }}`),
 *   and in Valid Until (`{{ $now.plus({ days: 1 }) }}`, which HTTP Request sends too);
 * - the same 100,000 numbers in one item: Send vs a Code node that splits them 1,000 per item,
 *   then HTTP Request;
 * - the delivery reports of a 20,000-number batch, one item per report: Get Status vs HTTP
 *   Request, then Split Out.
 * The rows come from a Code node, the same on both sides. Legs run in rounds, the two sides
 * alternating (figures.ts).
 */
import type { JsonObject } from '../scripts/n8n/runData';
import type { Sandbox } from '../sandbox/server';
import { median, roundRatios, type Figure } from './figures';
import {
	BASIC_CREDENTIAL,
	batchIds,
	bulkSms,
	code,
	chosen,
	legsInRounds,
	nodeId,
	send,
	startProduct,
	type LegResult,
	type Scenario,
	type Side,
	USER,
} from './n8nStart';

/** Send's highest Concurrent Requests, for the personalised scenario's third leg. */
const SEND_CONCURRENCY = 32;

const numberOf = (i: number) => `4477009${String(i).padStart(5, '0')}`;
const NUMBER_JS = "'4477009' + String(i).padStart(5, '0')";

const PERSONAL = '=Hi {{ $json.name }}, your appointment is tomorrow at 10.';

/** What a user's Code node does with `numbers`: requests of 1,000, one item each. */
const CHUNKS_JS = `const chunks = [];
for (let i = 0; i < numbers.length; i += 1000) chunks.push({ json: { destination: numbers.slice(i, i + 1000).join(',') } });
return chunks;`;

const NO_RECORD: JsonObject = { sendEachNumberOnce: false };

/** Send of one message to every row, combined into requests of 1,000. */
const combinedSend =
	(options: JsonObject = {}, parameters: JsonObject = {}) =>
	() => [
		rows100k(),
		send({
			destinations: '={{ $json.number }}',
			message: 'Hi',
			sendOptions: { combineItems: true, ...options },
			...parameters,
		}),
	];

/** What a user's Code node and HTTP Request do for the same: numbers joined 1,000 an item. */
const chunkedHttp =
	(body: JsonObject = {}) =>
	(baseUrl: string) => [
		rows100k(),
		code('Chunk', `const numbers = $input.all().map((item) => item.json.number);\n${CHUNKS_JS}`),
		httpSend(baseUrl, '={{ $json.destination }}', 'Hi', body),
	];

/** A new campaign each run, as a user names it to send the same text again sooner. */
const EACH_RUN_CAMPAIGN: JsonObject = { campaign: '={{ $execution.id }}' };
const VALID_FOR_A_DAY: JsonObject = {
	validity: 'until',
	validityUntil: '={{ $now.plus({ days: 1 }) }}',
};

/** Send of the 100,000 numbers of one item. */
const oneItemSend =
	(options: JsonObject = {}) =>
	() => [
		oneItem100k(),
		send({ destinations: '={{ $json.numbers }}', message: 'Hi', sendOptions: options }),
	];

export const SCENARIOS: Scenario[] = [
	{
		key: 'n8n_personalised_5000',
		label: '5,000 personalised rows, one request each: Send vs HTTP Request, defaults',
		nodes: {
			node: () => [personalRows(), send({ destinations: '={{ $json.to }}', message: PERSONAL })],
			n8n: (baseUrl) => [personalRows(), httpSend(baseUrl, '={{ $json.to }}', PERSONAL)],
			node32: () => [
				personalRows(),
				send({
					destinations: '={{ $json.to }}',
					message: PERSONAL,
					sendOptions: { concurrency: SEND_CONCURRENCY },
				}),
			],
		},
		check: batchIds,
	},
	{
		key: 'n8n_combined_100k',
		label: '100,000 rows, one message: Send (combined) vs Code chunking + HTTP Request',
		nodes: {
			node: combinedSend(),
			// Send without its record (Send Each Number Once off): what the record costs here.
			noRecord: combinedSend(NO_RECORD),
			n8n: chunkedHttp(),
		},
		check: batchIds,
	},
	{
		key: 'n8n_combined_100k_campaign_execution_id',
		label:
			'100,000 rows, one message, Campaign {{ $execution.id }}: Send (combined) vs Code + HTTP Request',
		nodes: {
			node: combinedSend(EACH_RUN_CAMPAIGN),
			noRecord: combinedSend({ ...EACH_RUN_CAMPAIGN, ...NO_RECORD }),
			n8n: chunkedHttp(),
		},
		check: batchIds,
	},
	{
		key: 'n8n_combined_100k_valid_until_now',
		label:
			'100,000 rows, one message, Valid Until {{ $now.plus({ days: 1 }) }}: Send (combined) vs Code + HTTP Request (validity_period)',
		nodes: {
			node: combinedSend({}, VALID_FOR_A_DAY),
			noRecord: combinedSend(NO_RECORD, VALID_FOR_A_DAY),
			n8n: chunkedHttp({
				validity_period: "={{ $now.plus({ days: 1 }).toUTC().toFormat('yyMMddHHmmss') }}",
			}),
		},
		check: batchIds,
	},
	{
		key: 'n8n_one_item_100k',
		label: 'the same 100,000 numbers in one item: Send vs Code split + HTTP Request',
		nodes: {
			node: oneItemSend(),
			noRecord: oneItemSend(NO_RECORD),
			n8n: (baseUrl) => [
				oneItem100k(),
				code('Split', `const numbers = $input.first().json.numbers.split(',');\n${CHUNKS_JS}`),
				httpSend(baseUrl, '={{ $json.destination }}', 'Hi'),
			],
		},
		check: batchIds,
	},
	{
		key: 'n8n_status_20000',
		label: 'status of a 20,000-number batch: Get Status vs HTTP Request + Split Out',
		nodes: {
			node: () => [batchItem(), getStatus()],
			n8n: (baseUrl) => [batchItem(), httpStatus(baseUrl), splitOut('reports')],
		},
		prepare: sendStatusBatch,
		check: reportIds,
	},
];

/** `npm run bench -- --only product`: every scenario in rounds, in one n8n. */
export async function figures(): Promise<Figure[]> {
	const scenarios = chosen(SCENARIOS);
	const product = await startProduct(scenarios);
	try {
		const result: Figure[] = [];
		for (const scenario of scenarios) {
			result.push(figureOf(scenario, await legsInRounds(product, scenario)));
		}
		return result;
	} finally {
		await product.stop();
	}
}

function figureOf(scenario: Scenario, counted: Record<Side, LegResult[]>): Figure {
	const ms = (side: Side) => counted[side].map((result) => result.ms);
	const extra: Record<string, number> = {};
	for (const side of Object.keys(counted)) {
		const of = (name: Exclude<keyof LegResult, 'execution'>) =>
			median(counted[side].map((result) => result[name]));
		for (const name of [
			'main_cpu_s',
			'runner_cpu_s',
			'main_peak_mib',
			'main_rise_mib',
			'runner_peak_mib',
			'in_flight_mean',
			'in_flight_max',
		] as const)
			extra[`${side}_${name}`] = of(name);
		extra[`${side}_ids_exact`] = Math.min(...counted[side].map((result) => result.ids_exact));
		extra[`${side}_ids_total`] = of('ids_total');
		if (side !== 'node' && side !== 'n8n') {
			extra[`${side}_median_ms`] = median(ms(side));
			extra[`${side}_ratio_median`] = median(roundRatios(ms(side), ms('n8n')));
		}
	}
	const cpu = (side: Side) =>
		counted[side].map((result) => result.main_cpu_s + result.runner_cpu_s);
	extra.cpu_ratio_median = median(roundRatios(cpu('node'), cpu('n8n')));
	const ourMain = counted.node.map((result) => result.main_peak_mib);
	const theirs = counted.n8n.map((result) => result.main_peak_mib + result.runner_peak_mib);
	extra.main_peak_vs_their_main_and_runner_median = median(roundRatios(ourMain, theirs));
	return {
		scenario: scenario.key,
		label: scenario.label,
		measured: ms('node'),
		baseline: ms('n8n'),
		extra,
	};
}

// The checks: ids in the answer against what the sandbox gave.

function reportIds(sandbox: Sandbox, answer: JsonObject[]): { exact: number; total: number } {
	const given = new Set(
		sandbox
			.received()
			.batches.flatMap((batch) =>
				batch.messages.map((message) => `${batch.batch_id} ${message.gateway_session_id}`),
			),
	);
	const exact = answer.filter((report) =>
		given.has(`${String(report.batch_id)} ${String(report.gateway_session_id)}`),
	).length;
	return { exact, total: given.size };
}

/** The 20,000-number batch whose reports are read, sent straight to the sandbox, then final. */
async function sendStatusBatch(sandbox: Sandbox): Promise<void> {
	const destination = Array.from({ length: 20_000 }, (_, i) => numberOf(i)).join(',');
	const answer = await fetch(`${sandbox.baseUrl}/api/sms/send`, {
		method: 'POST',
		body: new URLSearchParams({ destination, message: 'Hi' }),
		headers: {
			Authorization: `Basic ${Buffer.from(`${USER.username}:${USER.password}`).toString('base64')}`,
			Accept: 'application/json',
			// Not kept for the next leg's sandbox, which listens on the same port.
			Connection: 'close',
		},
	});
	if (!answer.ok) throw new Error(`bench: the status batch was not sent (${answer.status})`);
	sandbox.advance(60_000);
}

const personalRows = () =>
	code(
		'Rows',
		`return Array.from({ length: 5000 }, (_, i) => ({ json: { to: ${NUMBER_JS}, name: 'Contact ' + i } }));`,
	);

const rows100k = () =>
	code(
		'Rows',
		`return Array.from({ length: 100000 }, (_, i) => ({ json: { number: ${NUMBER_JS} } }));`,
	);

const oneItem100k = () =>
	code(
		'Numbers',
		`return [{ json: { numbers: Array.from({ length: 100000 }, (_, i) => ${NUMBER_JS}).join(',') } }];`,
	);

/** The batch sendStatusBatch makes: the first a fresh sandbox gives. */
const batchItem = () => code('Batch', "return [{ json: { batch_id: '9007199254740993' } }];");

const getStatus = () => bulkSms('Get Status', { operation: 'getStatus' });

/** HTTP Request as the n8n docs show it for a form post with Basic auth. */
function http(name: string, parameters: JsonObject): JsonObject {
	return {
		id: nodeId(),
		name,
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		parameters: {
			authentication: 'genericCredentialType',
			genericAuthType: 'httpBasicAuth',
			sendHeaders: true,
			headerParameters: { parameters: [{ name: 'Accept', value: 'application/json' }] },
			options: {},
			...parameters,
		},
		credentials: { httpBasicAuth: BASIC_CREDENTIAL },
	};
}

function httpSend(
	baseUrl: string,
	destination: string,
	message: string,
	more: JsonObject = {},
): JsonObject {
	const fields = { destination, message, ...more };
	return http('HTTP Request', {
		method: 'POST',
		url: `${baseUrl}/api/sms/send`,
		sendBody: true,
		contentType: 'form-urlencoded',
		bodyParameters: {
			parameters: Object.entries(fields).map(([name, value]) => ({ name, value })),
		},
	});
}

function httpStatus(baseUrl: string): JsonObject {
	return http('HTTP Request', {
		method: 'GET',
		url: `=${baseUrl}/api/sms/get_status?batch_id={{ $json.batch_id }}`,
	});
}

function splitOut(field: string): JsonObject {
	return {
		id: nodeId(),
		name: 'Split Out',
		type: 'n8n-nodes-base.splitOut',
		typeVersion: 1,
		parameters: { fieldToSplitOut: field, options: {} },
	};
}
