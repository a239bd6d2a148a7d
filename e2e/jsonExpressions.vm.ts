/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	no-console
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * Run by e2e/jsonExpressions.e2e.ts under n8n's own Node: the fast path for `$json` expressions
 * (nodes/shared/jsonExpressions.ts) against n8n's expression engine as `n8n start` runs it, the
 * isolate engine ('vm', n8n 2.41.1's default), over the generated parameters and items of
 * test/bulkSms/jsonExpressionCases.ts. n8n's side is what getNodeParameter evaluates a parameter
 * with: n8n-workflow's WorkflowExpression.getParameterValue, over the node's input items.
 *
 *   <n8n's node> --import tsx e2e/jsonExpressions.vm.ts <n8n's node_modules folder> [times]
 *
 * Prints one JSON line: { compared, answered, found, disagreements: [first few] }.
 */
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { isDeepStrictEqual } from 'node:util';

import fc from 'fast-check';

import { ASK_N8N, compileJsonExpression } from '../nodes/shared/jsonExpressions';
import {
	hostileItems,
	hostileParameter,
	sheetParameter,
	sheetRows,
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

/** `times` multiplies the generated cases (1: what the e2e test runs). */
async function main(modules: string, times: number): Promise<void> {
	const n8nWorkflow = createRequire(path.join(modules, 'noop.js'))(
		'n8n-workflow',
	) as N8nWorkflowModule;
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
	const tally = { compared: 0, answered: 0, found: 0, disagreements: [] as unknown[] };
	const check = (value: string, items: Record<string, unknown>[]) => {
		const fast = compileJsonExpression(value);
		const input = items.map((json) => ({ json }));
		items.forEach((json, index) => {
			const n8n = outcome(() =>
				workflow.expression.getParameterValue(
					value,
					runExecutionData,
					0,
					index,
					'Resolve',
					input,
					'manual',
					{},
					undefined,
				),
			);
			const mine = fast ? fast(json) : ASK_N8N;
			tally.compared++;
			if (mine === ASK_N8N) return;
			tally.answered++;
			if (mine !== undefined) tally.found++;
			if (!('value' in n8n) || !isDeepStrictEqual(n8n.value, mine)) {
				tally.disagreements.push({ value, json: String(JSON.stringify(json)), n8n, fast: mine });
			}
		});
	};
	try {
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
	} finally {
		await workflow.expression.releaseIsolate();
		await Expression.disposeExpressionEngine();
	}
	console.log(JSON.stringify({ ...tally, disagreements: tally.disagreements.slice(0, 5) }));
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
