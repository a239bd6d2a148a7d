/* eslint-disable
	@n8n/community-nodes/no-dangerous-functions,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * Send's fast ways of reading expressions (nodes/shared/jsonExpressions.ts for `$json`,
 * nodes/shared/sameForEveryItem.ts for what reads nothing of the item) against the expression
 * engine `n8n start` runs by default: isolated-vm, which needs n8n's own Node and its native
 * build, so e2e/jsonExpressions.vm.ts runs there, over the generated cases of the unit test
 * (test/bulkSms/jsonExpressions.property.test.ts runs them against the in-process engine).
 * BULKSMS_N8N_VERSION=1 runs it against n8n 1.x's engine (its default is the isolate too).
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

import { provision } from '../scripts/n8n/provision';
import { REPO_ROOT } from '../scripts/n8n/package';

interface Tally {
	compared: number;
	answered: number;
	found: number;
	disagreements: unknown[];
	sameForEveryItem: {
		parameters: number;
		once: number;
		withValue: number;
		disagreements: unknown[];
	};
}

test("wherever Send's fast paths answer, n8n's isolate engine gives the same", async () => {
	const n8n = await provision();
	const modules = path.resolve(path.dirname(n8n.n8nBin), '..', '..');
	const run = spawnSync(
		n8n.nodeBin,
		['--import', 'tsx', path.join('e2e', 'jsonExpressions.vm.ts'), modules],
		{ cwd: REPO_ROOT, env: n8n.env, encoding: 'utf8', timeout: 200_000 },
	);
	if (run.status !== 0) throw new Error(`jsonExpressions.vm.ts failed:\n${run.stderr}`);
	const tally = JSON.parse(run.stdout.trim().split('\n').pop() as string) as Tally;
	expect(tally.disagreements).toEqual([]);
	// Not vacuous: the fast path answered for about half of the cases, most with a value.
	expect(tally.answered / tally.compared).toBeGreaterThan(0.4);
	expect(tally.found / tally.compared).toBeGreaterThan(0.25);
	// What Send reads once for the run, n8n gives every item, for a good share of the parameters.
	const once = tally.sameForEveryItem;
	expect(once.disagreements).toEqual([]);
	expect(once.once / once.parameters).toBeGreaterThan(0.3);
	expect(once.withValue / once.parameters).toBeGreaterThan(0.2);
});
