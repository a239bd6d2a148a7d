/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	no-console
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * Run by e2e/jsonExpressions.e2e.ts under n8n's own Node: Send's fast ways of reading an
 * expression against n8n's expression engine as `n8n start` runs it, the isolate engine ('vm',
 * n8n 2.41.1's default), over the generated parameters and items of
 * test/bulkSms/jsonExpressionCases.ts. n8n's side is what getNodeParameter evaluates a parameter
 * with: n8n-workflow's WorkflowExpression.getParameterValue, over the node's input items.
 * - `$json` expressions (nodes/shared/jsonExpressions.ts): where the fast path answers, n8n
 *   gives the same value.
 * - Expressions that read nothing of the item (nodes/shared/sameForEveryItem.ts), which Send has
 *   n8n evaluate for the first item only: where n8n gives the first item a value, it gives every
 *   item that value. The isolate's clock is stopped at NOW (a line before n8n's runtime bundle
 *   as the isolate loads it), so that every item reads the same instant.
 *
 *   <n8n's node> --import tsx e2e/jsonExpressions.vm.ts <n8n's node_modules folder> [times]
 *
 * Prints one JSON line: { compared, answered, found, disagreements: [first few],
 * sameForEveryItem: { parameters, once, withValue, disagreements: [first few] } }.
 */
import type * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { isDeepStrictEqual } from 'node:util';

import fc from 'fast-check';

import { ASK_N8N, compileJsonExpression } from '../nodes/shared/jsonExpressions';
import { isSameForEveryItem } from '../nodes/shared/sameForEveryItem';
import {
	hostileItems,
	hostileParameter,
	NOW,
	runWideParameter,
	severalItems,
	sheetParameter,
	sheetRows,
	VARIABLES,
} from '../test/bulkSms/jsonExpressionCases';

type Outcome = { value: unknown } | { error: string };

interface N8nWorkflowModule {
	Expression: {
		initExpressionEngine(options: Record<string, unknown>): Promise<void>;
		disposeExpressionEngine(): Promise<void>;
		getActiveImplementation(): string;
	};
	Workflow: new (parameters: Record<string, unknown>) => {
		expression: {
			acquireIsolate(): Promise<boolean>;
			releaseIsolate(): Promise<void>;
			getParameterValue(...args: unknown[]): unknown;
		};
	};
}

/** Values of the run as n8n gives them to a node's expressions (n8n-core's getAdditionalKeys). */
const EXECUTION_ID = '4242';
const ADDITIONAL_KEYS = {
	$execution: {
		id: EXECUTION_ID,
		mode: 'test',
		resumeUrl: `http://127.0.0.1:5678/webhook-waiting/${EXECUTION_ID}`,
		resumeFormUrl: `http://127.0.0.1:5678/form-waiting/${EXECUTION_ID}`,
	},
	$vars: VARIABLES,
	$executionId: EXECUTION_ID,
	$resumeWebhookUrl: `http://127.0.0.1:5678/webhook-waiting/${EXECUTION_ID}`,
};

/** `times` multiplies the generated cases (1: what the e2e test runs). */
async function main(modules: string, times: number): Promise<void> {
	const load = createRequire(path.join(modules, 'noop.js'));
	stopTheIsolatesClock(load('node:fs') as typeof fs);
	const n8nWorkflow = load('n8n-workflow') as N8nWorkflowModule;
	const { Expression, Workflow } = n8nWorkflow;
	// n8n start's defaults (@n8n/config's expression engine settings).
	await Expression.initExpressionEngine({
		engine: 'vm',
		poolSize: 1,
		maxCodeCacheSize: 1024,
		bridgeTimeout: 5000,
		bridgeMemoryLimit: 128,
	});
	if (Expression.getActiveImplementation() !== 'vm')
		throw new Error('the isolate engine did not start');
	const nodeType = { description: { properties: [] } };
	const workflow = new Workflow({
		id: 'vm-differential',
		name: 'VM differential',
		nodes: [
			{
				id: 'r',
				name: 'Resolve',
				type: 'test.resolve',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
		],
		connections: {},
		active: false,
		nodeTypes: {
			getByName: () => nodeType,
			getByNameAndVersion: () => nodeType,
			getKnownTypes: () => ({}),
		},
		settings: { executionOrder: 'v1', timezone: 'UTC' },
	});
	await workflow.expression.acquireIsolate();
	const runExecutionData = { resultData: { runData: {} } };
	/** n8n's value of the parameter for each item, as getNodeParameter evaluates it. */
	const n8nValues = (value: string, items: Record<string, unknown>[]): Outcome[] => {
		const input = items.map((json) => ({ json }));
		return items.map((_, index) =>
			outcome(() =>
				workflow.expression.getParameterValue(
					value,
					runExecutionData,
					0,
					index,
					'Resolve',
					input,
					'manual',
					ADDITIONAL_KEYS,
					undefined,
				),
			),
		);
	};
	const tally = { compared: 0, answered: 0, found: 0, disagreements: [] as unknown[] };
	const check = (value: string, items: Record<string, unknown>[]) => {
		const fast = compileJsonExpression(value);
		const n8n = n8nValues(value, items);
		items.forEach((json, index) => {
			const mine = fast ? fast(json) : ASK_N8N;
			tally.compared++;
			if (mine === ASK_N8N) return;
			tally.answered++;
			if (mine !== undefined) tally.found++;
			const theirs = n8n[index];
			if (!('value' in theirs) || !isDeepStrictEqual(theirs.value, mine)) {
				tally.disagreements.push({
					value,
					json: String(JSON.stringify(json)),
					n8n: theirs,
					fast: mine,
				});
			}
		});
	};
	const once = { parameters: 0, once: 0, withValue: 0, disagreements: [] as unknown[] };
	const checkOnce = (value: string, items: Record<string, unknown>[]) => {
		once.parameters++;
		if (!isSameForEveryItem(value)) return;
		once.once++;
		const [first, ...others] = n8nValues(value, items);
		// n8n refused the first item: Send then has n8n evaluate every item.
		if (!('value' in first)) return;
		once.withValue++;
		others.forEach((theirs, index) => {
			if (!isDeepStrictEqual(theirs, first)) {
				once.disagreements.push({ value, item: index + 1, first, n8n: theirs });
			}
		});
	};
	try {
		const [now] = n8nValues('={{ $now.toMillis() }}', [{}]);
		if (!isDeepStrictEqual(now, { value: NOW }))
			throw new Error(`the isolate's clock did not stop: $now gave ${JSON.stringify(now)}`);
		fc.assert(
			fc.property(hostileParameter, hostileItems, (value, items) => check(value, items)),
			{
				seed: 27,
				numRuns: 1500 * times,
			},
		);
		fc.assert(
			fc.property(sheetParameter, sheetRows, (value, items) => check(value, items)),
			{
				seed: 27,
				numRuns: 800 * times,
			},
		);
		fc.assert(
			fc.property(runWideParameter, severalItems, (value, items) => checkOnce(value, items)),
			{ seed: 27, numRuns: 1000 * times },
		);
	} finally {
		await workflow.expression.releaseIsolate();
		await Expression.disposeExpressionEngine();
	}
	console.log(
		JSON.stringify({
			...tally,
			disagreements: tally.disagreements.slice(0, 5),
			sameForEveryItem: { ...once, disagreements: once.disagreements.slice(0, 5) },
		}),
	);
}

/**
 * The isolate reads the clock inside itself (its `$now` is the runtime bundle's Luxon
 * DateTime.now(), which calls Date.now()): the bundle, as the isolate loads it, starts with a
 * line that stops Date.now() at NOW. `files` is Node's own fs module, which n8n reads the bundle
 * with (readFileSync in 2.x, fs/promises' readFile in 1.x).
 */
function stopTheIsolatesClock(files: typeof fs): void {
	const stopped = (file: unknown, text: unknown) =>
		String(file).endsWith(path.join('bundle', 'runtime.iife.js'))
			? `Date.now = () => ${NOW};\n${String(text)}`
			: text;
	const { readFileSync } = files;
	files.readFileSync = ((file: fs.PathOrFileDescriptor, options?: unknown) =>
		stopped(file, readFileSync(file, options as BufferEncoding))) as typeof fs.readFileSync;
	const { readFile } = files.promises;
	files.promises.readFile = (async (file: fs.PathLike, options?: unknown) =>
		stopped(file, await readFile(file, options as BufferEncoding))) as typeof readFile;
}

function outcome(resolve: () => unknown): Outcome {
	try {
		return { value: resolve() };
	} catch (error) {
		return { error: (error as Error).message };
	}
}

void main(process.argv[2], Number(process.argv[3]) || 1).catch((error: unknown) => {
	console.error(error);
	process.exitCode = 1;
});
