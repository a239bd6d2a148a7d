/* eslint-disable
	@n8n/community-nodes/no-dangerous-functions,
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * describeState (nodes/shared/domain/watchState.ts) and scripts/describe-state.ts: a stored
 * trigger state in words, from the static data a real poll saved (through n8n-core's PollContext
 * against the sandbox) and from hand-written states of every kind.
 */
import { execFile } from 'node:child_process';
import * as path from 'node:path';

import { sendDirect } from '../../sandbox/client';
import type { Sandbox } from '../../sandbox/server';
import { reportId, TriggerMemory } from '../../nodes/BulkSmsStatusTrigger/memory';
import { describeState } from '../../nodes/shared/domain/watchState';
import { encodeNumbers } from '../../nodes/shared/domain/watchCodec';
import { FINAL_AFTER_MS, frozenSandbox, NUMBER, Watcher } from './helpers';

const ROOT = path.resolve(__dirname, '..', '..');

/** Runs the script with `input` on stdin, as the docs tell users to. */
async function describeScript(input: string): Promise<{ code: number; stdout: string }> {
	return await new Promise((resolve) => {
		const tsx = path.join(ROOT, 'node_modules', '.bin', 'tsx');
		const child = execFile(
			tsx,
			[path.join(ROOT, 'scripts', 'describe-state.ts')],
			{ cwd: ROOT },
			(error, stdout) => resolve({ code: error ? Number(error.code) : 0, stdout }),
		);
		child.stdin?.end(input);
	});
}

describe('a state saved by a real poll, in words', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await frozenSandbox();
	});
	afterAll(async () => {
		await sandbox.stop();
	});

	it('names each batch with its destinations seen and pending, from the whole staticData', async () => {
		const batchId = await sendDirect(sandbox.baseUrl, [
			NUMBER.delivered(1),
			NUMBER.delivered(2),
			NUMBER.neverFinal(3),
		]);
		const watcher = new Watcher(sandbox.baseUrl, { batchIds: batchId, emit: 'final' });
		await watcher.poll();
		sandbox.advance(FINAL_AFTER_MS);
		await watcher.emitted();
		// What n8n's database holds in workflow_entity.staticData after that poll.
		const { code, stdout } = await describeScript(JSON.stringify(watcher.persisted));
		expect(stdout).toBe(
			[
				'Node "Bulk SMS Trigger":',
				'Bulk SMS Trigger state, version 2, generation 2 (one more for each state a poll stored).',
				'Unfinished batches: 1.',
				`- batch ${batchId}: 3 destination(s) seen, 1 pending (1 ENROUTE), 2 final (handled: emitted, filtered out, or part of the first poll's baseline).`,
				'Finished batches (not asked for again while watched): 0.',
				'',
				'',
			].join('\n'),
		);
		expect(code).toBe(0);
	});

	it("prints a Status Trigger's memory too, as n8n saved it", async () => {
		const node: Record<string, unknown> = {};
		new TriggerMemory().keep(
			[reportId({ batch_id: '1', gateway_session_id: '2', msisdn: '3', status: 'UNDELIV' })],
			node,
			10,
		);
		const staticData = { 'node:Callbacks': JSON.parse(JSON.stringify(node)) as unknown };
		const { code, stdout } = await describeScript(JSON.stringify(staticData));
		expect(stdout).toMatch(
			/^Node "Callbacks":\nBulk SMS Status Trigger memory: 1 report\(s\) of 1 message\(s\) \(1 UNDELIV\), the oldest first heard /,
		);
		expect(code).toBe(0);
	});

	it('says so when the input holds no trigger state', async () => {
		const { code } = await describeScript('{"global":{}}');
		expect(code).toBe(1);
	});
});

describe('describeState', () => {
	const twelve = Array.from({ length: 12 }, (_, i) => String(i + 1));

	it.each<[string, unknown, string[]]>([
		[
			'a batch all final once, failures and a report due',
			{
				v: 2,
				g: 9,
				b: {
					'77': { k: encodeNumbers([447700900100, 447700900101]), r: '', d: 1 },
					'78': {
						k: encodeNumbers([447700900100]),
						r: '0,1',
						o: ['0447'],
						x: [['0447', 'QUEUED']],
					},
				},
				f: twelve,
				e: { '79': 4 },
				q: [['79', 'The service failed (HTTP 500)']],
			},
			[
				'Bulk SMS Trigger state, version 2, generation 9 (one more for each state a poll stored).',
				'Unfinished batches: 2.',
				"- batch 77: 2 destination(s) seen, 0 pending, 2 final (handled: emitted, filtered out, or part of the first poll's baseline). The last read found every destination final: the next read that finds them all final again, with none new, finishes the batch.",
				"- batch 78: 2 destination(s) seen, 2 pending (1 ENROUTE, 1 QUEUED), 0 final (handled: emitted, filtered out, or part of the first poll's baseline).",
				'Finished batches (not asked for again while watched): 12: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 2 more.',
				'Failing: batch 79 could not be read in 4 poll(s) in a row.',
				'To be reported first thing by the next poll: batch 79 (The service failed (HTTP 500)).',
			],
		],
		[
			'a first-version state, one entry damaged',
			{ v: 1, b: { '5': { p: encodeNumbers([11]) }, '6': { p: '!' } }, f: [] },
			[
				'Bulk SMS Trigger state, version 2 (stored by the first version, which kept only pending numbers; carried over), generation 1 (one more for each state a poll stored).',
				'Unfinished batches: 1.',
				"- batch 5: 1 destination(s) seen, 1 pending (1 ENROUTE), 0 final (handled: emitted, filtered out, or part of the first poll's baseline). Carried over from the first version: a final report of a destination it does not know is taken as handled, not emitted.",
				'Finished batches (not asked for again while watched): 0.',
				'Damaged entries left out (those batches start over, as if never read): 6.',
			],
		],
		[
			'something else',
			{ v: 3, b: {}, f: [] },
			[
				'Not a Bulk SMS Trigger state that can be read: the next poll starts over with nothing known, as a first poll does (what it finds then is its baseline).',
			],
		],
	])('%s', (_name, stored, lines) => {
		expect(describeState(stored)).toBe(lines.join('\n'));
	});
});
