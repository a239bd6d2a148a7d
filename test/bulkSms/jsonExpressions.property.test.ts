/**
 * The fast path for expressions that read the item's JSON (nodes/shared/jsonExpressions.ts)
 * against n8n's own evaluator: one parameter resolved both ways, item by item, inside a node run
 * by n8n's engine (getNodeParameter, n8n-workflow's Expression), over generated items and
 * generated parameters. Wherever the fast path gives a value, n8n gives the same one (Object.is
 * for scalars, so -0 is not 0; the same elements for lists); and Send's parameter reader, which
 * asks n8n wherever the fast path does not answer, always gives what n8n gives, errors included.
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
import { MANUAL_TRIGGER, outputOf, runWorkflow } from '../engine/harness';
import { hostileItems, hostileParameter, sheetParameter, sheetRows } from './jsonExpressionCases';

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
		const read = parameterReader(this);
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
	const run = await runWorkflow({
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
