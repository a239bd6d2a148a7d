/* eslint-disable
	@n8n/community-nodes/no-hardcoded-secrets
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * What Send's record costs (Send Each Number Once, on by default: the record is n8n's
 * deduplication store of the Send node, read and rewritten whole on every call; see
 * nodes/BulkSms/operations/send/record.ts), in the real product (n8nStart.ts): Send with its
 * record beside the same Send with Send Each Number Once off, legs in rounds (figures.ts):
 * - a Send of 1,000 numbers (one item, one request) whose node's record already holds 10,000,
 *   100,000 or 1,000,000 entries (the most a record keeps), a workflow for each; the records are
 *   filled beforehand by Send itself from the editor, whose runs keep what they sent, with other
 *   numbers (two entries a number);
 * - a campaign of 100,000 personalised rows, one request each (Destinations `{{ $json.phone }}`,
 *   Message `Hi {{ $json.name }}…`), Send's defaults (8 requests in flight).
 * Legs are calls of the production webhook (n8n's mode `webhook`), each its own campaign (named by
 * its execution), so that no leg holds back another's numbers. A run there that reaches every
 * number ends its campaign (record.ts): over 10,000 entries it takes its 1,000 numbers back; over
 * 100,000 and 1,000,000 that would cost seconds (TAKE_BACK_COMPARISONS), so it leaves them, and
 * the record grows by 2,000 entries a leg (to 132,000; the 1,000,000 record stays full). Every
 * campaign leg starts from an empty record. BENCH_ONLY=<key> runs one scenario. Each scenario
 * runs in its own n8n, so that no leg's memory figures carry another scenario's heap.
 */
import type { JsonObject } from '../scripts/n8n/runData';
import type { Sandbox } from '../sandbox/server';
import { median, roundRatios, type Figure } from './figures';
import {
	batchIds,
	code,
	chosen,
	legsInRounds,
	send,
	startProduct,
	type LegResult,
	type Product,
	type Scenario,
	type Side,
} from './n8nStart';

/** Entries a record holds before the legs, per side; `off` sends without a record. */
const RECORD_SIZES: Record<Side, number> = { '10k': 10_000, '100k': 100_000, '1m': 1_000_000 };
const OFF = 'off';
const NUMBERS = 1_000;
const CAMPAIGN_ROWS = 100_000;
/** Numbers sent by one run from the editor that fills a record (one item, 1,000 a request). */
const FILL_RUN = 100_000;

const grouped = (n: number) => n.toLocaleString('en');

const NUMBER_JS = (index: string) => `'4477' + String(${index}).padStart(8, '0')`;

/** One item with `count` numbers from `from` on: 1,000 from 0 unless the webhook's body says. */
const numbersItem = () =>
	code(
		'Numbers',
		`const { from = 0, count = ${NUMBERS} } = $input.first().json.body ?? {};
return [{ json: { numbers: Array.from({ length: count }, (_, i) => ${NUMBER_JS('from + i')}).join(',') } }];`,
	);

const campaignRows = () =>
	code(
		'Rows',
		`return Array.from({ length: ${CAMPAIGN_ROWS} }, (_, i) => ({ json: { phone: ${NUMBER_JS('i')}, name: 'Contact ' + i } }));`,
	);

const withRecord = (on: boolean): JsonObject => (on ? {} : { sendEachNumberOnce: false });

/** A campaign per execution (one item: the name is evaluated once). */
const ownCampaign = (on: boolean): JsonObject =>
	on ? { campaign: '={{ $execution.id }}' } : withRecord(false);

const sendNumbers = (on: boolean) => () => [
	numbersItem(),
	send({ destinations: '={{ $json.numbers }}', message: 'Hi', sendOptions: ownCampaign(on) }),
];

const sendCampaign = (on: boolean) => () => [
	campaignRows(),
	send({
		destinations: '={{ $json.phone }}',
		message: '=Hi {{ $json.name }}, your appointment is tomorrow at 10.',
		sendOptions: withRecord(on),
	}),
];

export const SCENARIOS: Scenario[] = [
	{
		key: 'record_1000_numbers',
		label: `Send of ${grouped(NUMBERS)} numbers over a record of N entries vs no record`,
		nodes: {
			[OFF]: sendNumbers(false),
			...Object.fromEntries(Object.keys(RECORD_SIZES).map((side) => [side, sendNumbers(true)])),
		},
		setup: fillRecords,
		check: sentEveryNumber,
	},
	{
		key: 'record_campaign_100k',
		label: `${grouped(CAMPAIGN_ROWS)} personalised rows, one request each: Send with its record vs without`,
		nodes: { on: sendCampaign(true), [OFF]: sendCampaign(false) },
		check: batchIds,
		// A leg takes minutes, so a disturbed second weighs little in it: 3 pairs after the warm-up.
		rounds: 3,
	},
];

/**
 * Fills each record from the editor with numbers the legs do not send, two entries a number, and
 * checks that the sandbox took every one (a number held back would leave the record short).
 */
async function fillRecords(product: Product): Promise<void> {
	for (const [side, entries] of Object.entries(RECORD_SIZES)) {
		for (let from = NUMBERS; from < NUMBERS + entries / 2; from += FILL_RUN) {
			const count = Math.min(FILL_RUN, NUMBERS + entries / 2 - from);
			const { received } = await product.runInEditor(SCENARIOS[0].key, side, { from, count });
			if (received.destinations.length !== count)
				throw new Error(
					`bench: filling the record of ${side} sent ${received.destinations.length} of ${count} numbers`,
				);
		}
	}
}

/** Every leg must send all its numbers: one held back by the record would make it cheaper. */
function sentEveryNumber(sandbox: Sandbox, answer: JsonObject[]): { exact: number; total: number } {
	const sent = sandbox.received().destinations.length;
	if (sent !== NUMBERS) throw new Error(`bench: a leg sent ${sent} of ${NUMBERS} numbers`);
	return batchIds(sandbox, answer);
}

/** `npm run bench -- --only record`: each scenario in rounds, each in its own n8n. */
export async function figures(): Promise<Figure[]> {
	const result: Figure[] = [];
	for (const scenario of chosen(SCENARIOS)) {
		const product = await startProduct([scenario]);
		try {
			const counted = await legsInRounds(product, scenario);
			for (const side of Object.keys(counted)) {
				if (side !== OFF) result.push(figureOf(scenario, side, counted));
			}
		} finally {
			await product.stop();
		}
	}
	return result;
}

/** A side beside Send without its record, round by round: ratios and differences. */
function figureOf(scenario: Scenario, side: Side, counted: Record<Side, LegResult[]>): Figure {
	const of = (name: keyof LegResult, from: Side) => counted[from].map((result) => result[name]);
	const extra: Record<string, number> = {};
	for (const name of ['ms', 'main_cpu_s', 'main_peak_mib', 'main_rise_mib'] as const) {
		const on = of(name, side);
		const off = of(name, OFF);
		if (name !== 'ms') {
			extra[name] = median(on);
			extra[`off_${name}`] = median(off);
		}
		extra[`added_${name}`] = median(on.map((value, round) => value - off[round]));
	}
	extra.main_cpu_ratio_median = median(roundRatios(of('main_cpu_s', side), of('main_cpu_s', OFF)));
	extra.ids_exact = Math.min(...of('ids_exact', side));
	extra.ids_total = median(of('ids_total', side));
	const entries = RECORD_SIZES[side];
	return {
		scenario: entries === undefined ? scenario.key : `${scenario.key}_over_${side}`,
		label:
			entries === undefined
				? scenario.label
				: scenario.label.replace('N entries', `${grouped(entries)} entries`),
		measured: of('ms', side),
		baseline: of('ms', OFF),
		extra,
	};
}
