/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * examples/follow-campaign-by-poll.json, exactly as a user imports it, run with `n8n execute`
 * against the sandbox (the demo's clock: final 3 s after sending): one personalised Send per
 * contact, then Wait → Check Batches (Get Status, one item per batch) in a loop that carries only
 * the batches still open, each batch leaving it once, when every message in it is final. The
 * polling trigger cannot follow a campaign without its ids pasted (n8n gives a poll no way to
 * learn them: docs/decisions.md, "Following a campaign by poll"), and this is what follows it
 * instead.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { type JsonObject, nodeRuns } from '../scripts/n8n/runData';
import { DEMO_SANDBOX } from '../scripts/n8n/service';
import { startHarness, type Harness } from './harness';

const EXAMPLE = JSON.parse(
	fs.readFileSync(path.join(__dirname, '..', 'examples', 'follow-campaign-by-poll.json'), 'utf8'),
) as JsonObject;

// The example's contacts and what the sandbox's test numbers do with them (sandbox/README.md).
const OUTCOMES: Record<string, string> = {
	'447700900120': 'DELIVRD',
	'447700900125': 'ACCEPTD',
	'447700900126': 'UNDELIV',
	'447700900127': 'REJECTD',
	'447700900130': 'DELIVRD',
};

describe('n8n execute of examples/follow-campaign-by-poll.json', () => {
	let harness: Harness;
	let run: JsonObject;

	beforeAll(async () => {
		harness = await startHarness(DEMO_SANDBOX);
		await harness.n8n.importWorkflow(EXAMPLE);
		run = await harness.n8n.executeWorkflow(String(EXAMPLE.id));
	});
	afterAll(() => harness?.stop());

	test('every message comes out once, with its final status, as its batch finishes', () => {
		expect(run).toMatchObject({ status: 'success', finished: true });
		const outcomes = nodeRuns(run, 'Delivery Outcome').flat();
		expect(Object.fromEntries(outcomes.map((item) => [item.msisdn, item.status]))).toEqual(
			OUTCOMES,
		);
		expect(outcomes).toHaveLength(Object.keys(OUTCOMES).length);
		for (const item of outcomes) expect(BigInt(String(item.batch_id))).toBeGreaterThan(2n ** 53n);
	});

	test('each check reads only the batches still open: none is read after it finished', () => {
		const checks = nodeRuns(run, 'Check Batches');
		const finishedBefore = new Set<string>();
		for (const batches of checks) {
			for (const batch of batches) expect(finishedBefore.has(String(batch.batch_id))).toBe(false);
			for (const batch of batches)
				if (batch.all_final === true) finishedBefore.add(String(batch.batch_id));
		}
		expect(checks[0]).toHaveLength(Object.keys(OUTCOMES).length);
		expect(finishedBefore.size).toBe(Object.keys(OUTCOMES).length);
	});
});
