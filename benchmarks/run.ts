/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	no-console
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * npm run bench [-- --json FILE] [-- --only MODULE]: every benchmark of the project, each
 * measured in rounds beside its baseline (figures.ts says why) and printed with the median of the
 * round ratios and their spread. Speed targets live here, never as timed assertions in tests.
 * With --json, the figures are also written as { "<scenario>": { ratio_median, ... } }.
 *
 * Against a replay server (status.ts, memory.ts): the client alone. Against the sandbox with
 * latency (send.ts): the node as users run it.
 */
import { writeFileSync } from 'node:fs';

import { printFigure, summarise, type Figure, type Summary } from './figures';

/** Each module measures one part; run one with `npm run bench -- --only status`. */
const MODULES: Record<string, () => Promise<{ figures: () => Promise<Figure[]> }>> = {
	parsing: () => import('./parsing'),
	dates: () => import('./dates'),
	status: () => import('./status'),
	memory: () => import('./memory'),
	send: () => import('./send'),
	trigger: () => import('./trigger'),
	callbacks: () => import('./callbacks'),
	callbackMemory: () => import('./callbackMemory'),
	product: () => import('./product'),
	record: () => import('./record'),
};

async function main(): Promise<void> {
	const args = process.argv.slice(2);
	const jsonFile = valueOf(args, '--json');
	const only = valueOf(args, '--only');
	const all: Record<string, Summary> = {};
	for (const [name, load] of Object.entries(MODULES)) {
		if (only && only !== name) continue;
		console.log(`\n${name}`);
		for (const figure of await (await load()).figures()) {
			printFigure(figure);
			all[figure.scenario] = summarise(figure);
		}
	}
	if (jsonFile) writeFileSync(jsonFile, `${JSON.stringify(all, null, 2)}\n`);
}

function valueOf(args: readonly string[], flag: string): string | undefined {
	const at = args.indexOf(flag);
	return at >= 0 ? args[at + 1] : undefined;
}

void main().catch((error: unknown) => {
	console.error(error);
	process.exitCode = 1;
});
