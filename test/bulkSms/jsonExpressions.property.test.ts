/**
 * Send's fast ways of reading an expression against n8n's own evaluator: one parameter resolved
 * both ways, item by item, inside a node run by n8n's engine (getNodeParameter, n8n-workflow's
 * Expression), over generated items and generated parameters.
 * - Expressions that read the item's JSON (nodes/shared/jsonExpressions.ts): wherever the fast
 *   path gives a value, n8n gives the same one (Object.is for scalars, so -0 is not 0; the same
 *   elements for lists).
 * - Expressions that read nothing of the item (nodes/shared/sameForEveryItem.ts), which Send's
 *   reader has n8n evaluate once for the run: n8n gives every item that value. The clock is
 *   stopped at NOW, so that every item reads the same instant.
 * And Send's parameter reader, which asks n8n wherever neither answers, always gives what n8n
 * gives, errors included.
 */
import fc from 'fast-check';
import { NodeConnectionTypes } from 'n8n-workflow';
import type {
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { parameterReader } from '../../nodes/BulkSms/operations/send/itemReader';
import { ASK_N8N, compileJsonExpression } from '../../nodes/shared/jsonExpressions';
import { isSameForEveryItem } from '../../nodes/shared/sameForEveryItem';
import { MANUAL_TRIGGER, outputOf, runWorkflow, stopTheClock } from '../engine/harness';
import {
	hostileItems,
	hostileParameter,
	NOW,
	runWideParameter,
	severalItems,
	sheetParameter,
	sheetRows,
	VARIABLES,
} from './jsonExpressionCases';

type Outcome = { value: unknown } | { error: string };

interface Resolved {
	n8n: Outcome;
	/** The fast path's own answer: a value, or ASK_N8N. */
	fast: unknown;
	/** What Send's parameter reader gives. */
	read: Outcome;
}

/** What the Feed node emits, and what the Resolve node found, for the run in progress. */
let feed: Record<string, unknown>[] = [];
let resolved: Resolved[] = [];
/** How many times Send's reader asked n8n for the parameter, over all items of the run. */
let readerAsked = 0;

const description = (name: string, properties: INodeTypeDescription['properties']) => ({
	displayName: name,
	name,
	group: ['transform'],
	version: 1,
	description: name,
	defaults: { name },
	inputs: [NodeConnectionTypes.Main],
	outputs: [NodeConnectionTypes.Main],
	properties,
});

/** Emits the items of `feed` as they are (no JSON round trip: dates, undefined, -0 stay). */
class Feed implements INodeType {
	description = description('feed', []) as INodeTypeDescription;
	async execute(): Promise<INodeExecutionData[][]> {
		return [feed.map((json) => ({ json, pairedItem: { item: 0 } }) as INodeExecutionData)];
	}
}

/** Resolves its `value` parameter for every item three ways. */
class Resolve implements INodeType {
	description = description('resolve', [
		{ displayName: 'Value', name: 'value', type: 'string', default: '' },
	]) as INodeTypeDescription;
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const fast = compileJsonExpression(this.getNode().parameters.value);
		// The reader's own context, the same but for counting what it asks n8n.
		const counted = Object.create(this, {
			getNodeParameter: {
				value: (...args: Parameters<IExecuteFunctions['getNodeParameter']>) => {
					readerAsked++;
					return this.getNodeParameter(...args);
				},
			},
		}) as IExecuteFunctions;
		const read = parameterReader(counted);
		const items = this.getInputData();
		items.forEach((item, index) => {
			resolved.push({
				n8n: outcome(() => this.getNodeParameter('value', index)),
				fast: fast ? fast(item.json) : ASK_N8N,
				read: outcome(() => read('value', index, '')),
			});
		});
		return [items];
	}
}

function outcome(resolve: () => unknown): Outcome {
	try {
		return { value: resolve() };
	} catch (error) {
		return { error: (error as Error).message };
	}
}

const node = (name: string, type: string, parameters = {}): INode => ({
	id: name,
	name,
	type,
	typeVersion: 1,
	position: [0, 0],
	parameters,
});

/** Resolves `value` over `items` in a workflow Manual Trigger → Feed → Resolve. */
async function resolveAll(value: string, items: Record<string, unknown>[]): Promise<Resolved[]> {
	feed = items;
	resolved = [];
	readerAsked = 0;
	const run = await runWorkflow({
		variables: VARIABLES,
		nodes: [
			node('Start', MANUAL_TRIGGER),
			node('Feed', 'test.feed'),
			node('Resolve', 'test.resolve', { value }),
		],
		connections: {
			Start: { main: [[{ node: 'Feed', type: 'main', index: 0 }]] },
			Feed: { main: [[{ node: 'Resolve', type: 'main', index: 0 }]] },
		},
		nodeTypes: { 'test.feed': new Feed(), 'test.resolve': new Resolve() },
	});
	outputOf(run, 'Resolve');
	return resolved;
}

/** Wherever the fast path answers, n8n gives the same; the reader always gives what n8n gives. */
function expectAgreement({ n8n, fast, read }: Resolved): void {
	expect(read).toStrictEqual(n8n);
	if (fast === ASK_N8N) return;
	expect(n8n).toStrictEqual({ value: fast });
}

describe('expressions that read the item: the fast path and n8n agree', () => {
	const contact = {
		number: '447700900123',
		name: 'Ann',
		'first name': 'Ann Marie',
		phones: ['447700900124', 447700900125],
		contact: { phone: '447700900126', empty: '', none: null, zero: 0, no: false },
		count: -0,
	};

	// [parameter, what n8n gives, whether the fast path answers]
	const cases: Array<[string, unknown, boolean]> = [
		['={{ $json.number }}', '447700900123', true],
		['={{$json.number}}', '447700900123', true],
		['={{\n  $json.number\n}}', '447700900123', true],
		['={{ $json["first name"] }}', 'Ann Marie', true],
		["={{ $json['first name'] }}", 'Ann Marie', true],
		['={{ $json.contact.phone }}', '447700900126', true],
		['={{ $json.phones }}', ['447700900124', 447700900125], true],
		['={{ $json.phones[1] }}', 447700900125, true],
		['={{ $json.count }}', -0, true],
		['={{ $json.contact.none }}', null, true],
		['={{ $json.missing }}', undefined, true],
		['=Hi {{ $json.name }}, call {{ $json.contact.phone }}', 'Hi Ann, call 447700900126', true],
		['=[{{ $json.contact.empty }}|{{ $json.contact.none }}|{{ $json.missing }}]', '[||]', true],
		['={{ $json.contact.zero }} {{ $json.contact.no }} {{ $json.count }}', '0 false 0', true],
		['= {{ $json.number }}', ' 447700900123', true],
		['=Hello {{ $json.name }} }}', 'Hello Ann }}', true],
		['=Plain text', 'Plain text', true],
		// n8n decides: a step past undefined, the prototype, an object, a call, other nodes.
		['={{ $json.missing.phone }}', undefined, false],
		['=Hi {{ $json.missing.phone }}!', 'Hi !', false],
		['={{ $json.name.length }}', 3, false],
		['={{ $json.phones.length }}', 2, false],
		['={{ $json.contact }}', contact.contact, false],
		['=Hi {{ $json.phones }}', 'Hi 447700900124,447700900125', false],
		['={{ $json.name.toUpperCase() }}', 'ANN', false],
		["={{ $('Feed').item.json.name }}", 'Ann', false],
		['={{ $json.number + 1 }}', '4477009001231', false],
		['={{ $json?.name }}', 'Ann', false],
		['=\\{{ $json.name }}', '\\{{ $json.name }}', false],
	];

	test.each(cases)('%s', async (value, expected, answers) => {
		const [result] = await resolveAll(value, [contact]);
		expect(result.n8n).toStrictEqual({ value: expected });
		expect(result.fast === ASK_N8N).toBe(!answers);
		expectAgreement(result);
	});

	test.each([
		'={{ $json.constructor }}',
		'={{ $json["__proto__"] }}',
		'={{ $json.name }} and .constructor',
		'={{ $json.$ }}',
	])('n8n refuses %s, and so does the reader (the fast path leaves it to n8n)', async (value) => {
		const [result] = await resolveAll(value, [contact]);
		expect(result.fast).toBe(ASK_N8N);
		expectAgreement(result);
	});
});

/**
 * Resolves every generated parameter over its items both ways; returns the share of items for
 * which the fast path answered, and answered with a value (not undefined).
 */
async function agreeing(
	parameters: fc.Arbitrary<string>,
	items: fc.Arbitrary<Record<string, unknown>[]>,
	numRuns: number,
): Promise<{ answered: number; found: number }> {
	let answered = 0;
	let found = 0;
	let compared = 0;
	await fc.assert(
		fc.asyncProperty(parameters, items, async (value, list) => {
			for (const result of await resolveAll(value, list)) {
				expectAgreement(result);
				compared++;
				if (result.fast === ASK_N8N) continue;
				answered++;
				if (result.fast !== undefined) found++;
			}
		}),
		{ seed: 27, numRuns },
	);
	return { answered: answered / compared, found: found / compared };
}

describe('expressions that read the item: generated parameters over generated items', () => {
	test('wherever the fast path answers, n8n gives the same; the reader always does', async () => {
		const shares = await agreeing(hostileParameter, hostileItems, 1500);
		// Not vacuous: the fast path answered for a share of these hostile parameters too.
		expect(shares.answered).toBeGreaterThan(0.2);
		expect(shares.found).toBeGreaterThan(0.1);
	}, 120_000);

	test('sheet rows and the parameters users write: the fast path answers, as n8n', async () => {
		const shares = await agreeing(sheetParameter, sheetRows, 800);
		expect(shares.answered).toBeGreaterThan(0.95);
	}, 120_000);
});

describe('expressions that read nothing of the item: read once, the value n8n gives every item', () => {
	beforeAll(() => stopTheClock(NOW));
	afterAll(() => jest.useRealTimers());
	const rows = [{ a: 'first' }, { a: 'second' }, { a: 'third' }];

	// [parameter, what n8n gives every item]
	const cases: Array<[string, unknown]> = [
		['={{ $execution.mode }}', 'test'],
		['={{ $workflow.name }}', 'Harness workflow'],
		['={{ $vars.campaign }}', 'spring-sale'],
		['=spring-{{ $today.toISODate() }}', 'spring-2026-12-31'],
		['={{ $now.toMillis() }}', NOW],
		[
			"={{ $now.plus({ days: 1 }).toFormat('yyyy-MM-dd HH:mm:ss.SSS') }}",
			'2027-01-01 23:59:59.500',
		],
		["={{ DateTime.fromISO('2026-12-24T18:00:00Z').toMillis() }}", Date.UTC(2026, 11, 24, 18)],
		["={{ 'spring-' + 2026 }}", 'spring-2026'],
		['={{ [1, 2] }}', [1, 2]],
		['={{ $vars.missing }}', undefined],
	];

	test.each(cases)('%s', async (value, expected) => {
		const results = await resolveAll(value, rows);
		expect(readerAsked).toBe(1);
		for (const result of results) {
			expect(result.n8n).toStrictEqual({ value: expected });
			expectAgreement(result);
		}
	});

	test.each(['={{ $execution.id }}', '={{ $now.plus({ days: 1 }) }}', '={{ $today }}'])(
		'%s: the run’s own value, read once and given to every item as n8n gives it',
		async (value) => {
			const results = await resolveAll(value, rows);
			expect(readerAsked).toBe(1);
			expect(results[0].n8n).toHaveProperty('value');
			results.forEach(expectAgreement);
		},
	);

	test('where n8n refuses the first item, it evaluates every item itself: its error for each', async () => {
		// A text that is not a number: n8n's own error, for every item.
		const results = await resolveAll('={{ $vars.campaign.toInt() }}', rows);
		expect(readerAsked).toBe(1 + rows.length);
		for (const result of results) {
			expect(result.n8n).toHaveProperty('error');
			expectAgreement(result);
		}
	});
});

describe('what may differ from item to item, or that the reader cannot place, is left to n8n per item', () => {
	beforeAll(() => stopTheClock(NOW));
	afterAll(() => jest.useRealTimers());
	const rows = [{ a: 'first' }, { a: 'second' }];

	test.each([
		// The item, its place, other nodes and parameters.
		'={{ $itemIndex }}',
		'={{ $position }}',
		'={{ $runIndex }}',
		'={{ $input.item.json.a }}',
		"={{ $('Feed').item.json.a }}",
		'={{ $prevNode.name }}',
		'={{ $binary }}',
		'={{ $data }}',
		'={{ $parameter.value }}',
		'={{ $node.Feed.json }}',
		"={{ $jmespath($vars, 'campaign') }}",
		'={{ $if(true, 1, 2) }}',
		"={{ $evaluateExpression('1') }}",
		// A value that may differ from call to call, or that writes (deterministic here).
		'={{ [7].randomItem() }}',
		'={{ Math.random() * 0 }}',
		"={{ $execution.customData.get('a') }}",
		'={{ $vars.count = 1 }}',
		// Reads hidden from a careless reader, and forms it does not place.
		"={{ $vars['campaign'] }}",
		'={{ `${$itemIndex}` }}',
		"={{ $now /* ' */ + $itemIndex + /* ' */ 1 }}",
		'={{ /"/.source + $itemIndex + /"/.source }}',
		'={{ (() => $itemIndex)() }}',
		'={{ ({ a: $itemIndex }).a }}',
		'={{ ({ a: 1 })["a"] }}',
		'={{ $now.__proto__ }}',
		'={{ $vars?.["campaign"] }}',
		'={{ $workflow.name; $itemIndex }}',
	])('%s', async (value) => {
		expect(isSameForEveryItem(value)).toBe(false);
		const results = await resolveAll(value, rows);
		expect(readerAsked).toBe(rows.length);
		results.forEach(expectAgreement);
	});
});

test.each([
	'={{ [1, 2, 3].randomItem() }}',
	'={{ Math.random() }}',
	'={{ crypto.randomUUID() }}',
	'={{ $vars.count++ }}',
	"={{ $execution.customData.set('a', 'b') }}",
])('%s differs from call to call or writes: never read once', (value) => {
	expect(isSameForEveryItem(value)).toBe(false);
});

describe('expressions that read nothing of the item: generated parameters over generated items', () => {
	beforeAll(() => stopTheClock(NOW));
	afterAll(() => jest.useRealTimers());

	test('the reader gives what n8n gives, and reads once what reads nothing of the item', async () => {
		let runs = 0;
		let once = 0;
		let onceWithValue = 0;
		await fc.assert(
			fc.asyncProperty(runWideParameter, severalItems, async (value, items) => {
				const results = await resolveAll(value, items);
				results.forEach(expectAgreement);
				runs++;
				// jsonExpressions.ts answers for plain text before it.
				if (!isSameForEveryItem(value) || compileJsonExpression(value)) return;
				if ('value' in results[0].n8n) {
					// Once for the run, unless n8n refused the first item.
					expect(readerAsked).toBe(1);
					onceWithValue++;
				}
				once++;
			}),
			{ seed: 27, numRuns: 600 },
		);
		// Not vacuous: a good share was read once, most of it with a value.
		expect(once / runs).toBeGreaterThan(0.3);
		expect(onceWithValue / runs).toBeGreaterThan(0.2);
	}, 120_000);
});
