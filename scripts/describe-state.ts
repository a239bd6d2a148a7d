/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	no-console
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * `npx tsx scripts/describe-state.ts < state.json`: prints in words what a Bulk SMS Trigger
 * remembers (describeState), and what a Bulk SMS Status Trigger remembers (describeMemory). The
 * input is JSON as n8n's database holds it (docs/trigger-state.md gives the SQL): a workflow's
 * whole `staticData`, one node's static data, or the state itself.
 */
import { describeMemory } from '../nodes/BulkSmsStatusTrigger/memory';
import { describeState } from '../nodes/shared/domain/watchState';

/** Each trigger state in the input, with the node it belongs to when the input names it. */
export function statesIn(input: unknown): Array<[node: string | undefined, state: unknown]> {
	if (!isObject(input)) return [];
	if ('v' in input) return [[undefined, input]];
	if ('watch' in input) return [[undefined, input.watch]];
	return Object.entries(input)
		.filter(([key, value]) => key.startsWith('node:') && isObject(value) && 'watch' in value)
		.map(([key, value]) => [key.slice('node:'.length), (value as { watch: unknown }).watch]);
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function main(): Promise<void> {
	let text = '';
	for await (const chunk of process.stdin) text += String(chunk);
	let input: unknown;
	try {
		input = JSON.parse(text);
	} catch {
		console.error('The input is not JSON: give the staticData column as the database holds it.');
		process.exitCode = 1;
		return;
	}
	const memories = isObject(input)
		? Object.entries(input).filter(
				([key, value]) => key.startsWith('node:') && isObject(value) && 'memory' in value,
			)
		: [];
	for (const [key, value] of memories) {
		console.log(`Node "${key.slice('node:'.length)}":`);
		console.log(`${describeMemory((value as { memory: unknown }).memory)}\n`);
	}
	const states = statesIn(input);
	if (states.length === 0 && memories.length > 0) return;
	if (states.length === 0) {
		console.error(
			'No Bulk SMS Trigger state in the input: give the staticData of a workflow whose trigger has polled (docs/trigger-state.md).',
		);
		process.exitCode = 1;
		return;
	}
	for (const [node, state] of states) {
		if (node !== undefined) console.log(`Node "${node}":`);
		console.log(`${describeState(state)}\n`);
	}
}

if (require.main === module) void main();
