/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * examples/follow-campaign.json, exactly as a user imports it, run with `n8n execute` against
 * the sandbox (the demo's clock: final 3 s after sending): a list of contacts, one personalised
 * Send per contact (one batch each), then Wait → Get Status (one campaign summary) until every
 * message is final, and a branch with one item per number that failed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { type JsonObject, nodeRuns } from '../scripts/n8n/runData';
import { DEMO_SANDBOX } from '../scripts/n8n/service';
import { startHarness, type Harness } from './harness';

const EXAMPLE = JSON.parse(
	fs.readFileSync(path.join(__dirname, '..', 'examples', 'follow-campaign.json'), 'utf8'),
) as JsonObject;

// The example's contacts and what the sandbox's test numbers do with them (sandbox/README.md).
const CONTACTS = [
	{ name: 'Alice', msisdn: '447700900120', status: 'DELIVRD' },
	{ name: 'Bob', msisdn: '447700900125', status: 'ACCEPTD' },
	{ name: 'Chloé', msisdn: '447700900126', status: 'UNDELIV' },
	{ name: 'Dev', msisdn: '447700900127', status: 'REJECTD' },
	{ name: 'Emma', msisdn: '447700900130', status: 'DELIVRD' },
];
const FAILED = CONTACTS.filter((contact) => ['UNDELIV', 'REJECTD'].includes(contact.status));

describe('n8n execute of examples/follow-campaign.json', () => {
	let harness: Harness;
	let run: JsonObject;
	let sent: JsonObject[];
	let summary: JsonObject;

	beforeAll(async () => {
		harness = await startHarness(DEMO_SANDBOX);
		await harness.n8n.importWorkflow(EXAMPLE);
		run = await harness.n8n.executeWorkflow(String(EXAMPLE.id));
		[sent] = nodeRuns(run, 'Send SMS');
		[summary] = nodeRuns(run, 'Get Status').at(-1) ?? [];
	});
	afterAll(() => harness?.stop());

	test('the run succeeds: one personalised send per contact, Get Status until all final', () => {
		expect(run).toMatchObject({ status: 'success', finished: true, mode: 'cli' });
		expect(sent).toHaveLength(CONTACTS.length);
		expect(nodeRuns(run, 'Get Status').length).toBeGreaterThanOrEqual(1);
		// Send's requests go out concurrently: the sandbox may receive them in any order, while
		// Send's output keeps the input order.
		const byId = new Map(
			harness.sandbox.received().batches.map((batch) => [batch.batch_id, batch]),
		);
		expect(sent.map((item) => byId.get(String(item.batch_id))?.message)).toEqual(
			CONTACTS.map((contact) => `Hi ${contact.name}, your order is ready for collection.`),
		);
		expect(byId.size).toBe(CONTACTS.length);
	});

	test('the campaign summary counts every batch and names the numbers that failed', () => {
		const ids = sent.map((item) => String(item.batch_id));
		expect(summary).toEqual({
			batches: 5,
			messages: 5,
			by_status: { DELIVRD: 2, ACCEPTD: 1, UNDELIV: 1, REJECTD: 1 },
			by_outcome: { delivered: 3, failed: 2, pending: 0 },
			all_final: true,
			unfinished_batches: [],
			failed: FAILED.map((contact) => ({
				msisdn: contact.msisdn,
				batch_id: ids[CONTACTS.indexOf(contact)],
				status: contact.status,
			})),
		});
	});

	test('the failed branch has one item per failed number, ids exact', () => {
		const [failed] = nodeRuns(run, 'Failed Numbers');
		expect(failed).toEqual(summary.failed);
		for (const item of failed) expect(BigInt(String(item.batch_id))).toBeGreaterThan(2n ** 53n);
	});

	test('the sandbox accepted each contact exactly once', () => {
		const { destinations } = harness.sandbox.received();
		expect(destinations.map((d) => [d.msisdn, d.accepted]).sort()).toEqual(
			CONTACTS.map((contact) => [contact.msisdn, 1]).sort(),
		);
	});
});
