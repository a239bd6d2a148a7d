/** Which runs of a Send node are one campaign, by what n8n says of each run: the rule as a table. */
import {
	apart,
	campaignOf,
	EDITOR,
	type RunStart,
} from '../../nodes/BulkSms/operations/send/record/campaign';

const AT = 1_795_926_483_219;
const webhook = { establishedAt: AT, source: 'webhook', triggerNode: { name: 'Alert' } };

const run = (mode: string, context?: RunStart['context'], setApart?: string): RunStart => ({
	mode,
	executionId: '42',
	context,
	setApart,
});

test.each<[string, RunStart, string, string]>([
	['a webhook call', run('webhook', webhook), '', `run webhook ${AT} Alert`],
	[
		'a schedule tick',
		run('trigger', { ...webhook, source: 'trigger' }),
		'',
		`run trigger ${AT} Alert`,
	],
	['n8n execute', run('cli', { establishedAt: AT, source: 'cli' }), '', `run cli ${AT} `],
	[
		'a sub-workflow call',
		run('integrated', { establishedAt: AT, source: 'integrated' }),
		'',
		`run integrated ${AT} `,
	],
	[
		'a Retry of a webhook run: its context is the run it retries',
		run('retry', webhook),
		'',
		`run webhook ${AT} Alert`,
	],
	[
		'a Retry of a run set apart: named in its custom data',
		run('retry', webhook, `run webhook ${AT} Alert #7`),
		'',
		`run webhook ${AT} Alert #7`,
	],
	['the editor', run('manual', { establishedAt: AT, source: 'manual' }), '', 'editor'],
	['a Retry of an editor run', run('retry', { establishedAt: AT, source: 'manual' }), '', 'editor'],
	['the test URL of a webhook', run('manual'), '', 'editor'],
	['a Campaign Key, from production', run('webhook', webhook), 'spring', 'key spring'],
	['a Campaign Key, from the editor', run('manual'), 'spring', 'key spring'],
	['an n8n that gives no start', run('webhook'), '', 'run execution 42'],
])('%s', (_, start, key, id) => {
	expect(campaignOf(start, key)).toMatchObject({ id });
});

test('a Retry whose n8n kept no start of the run it retries cannot be placed: it says so', () => {
	const crashedOn1x = run('retry', { establishedAt: AT, source: 'retry' });
	expect(campaignOf(crashedOn1x, '')).toEqual({
		unknown: 'n8n kept no record of when the execution it retries started',
	});
	expect(campaignOf(run('retry'), '')).toHaveProperty('unknown');
});

test('two production runs started in one millisecond: the second is set apart by its execution', () => {
	const first = campaignOf(run('webhook', webhook), '');
	expect(apart(first as never, '43')).toEqual({
		kind: 'run',
		id: `run webhook ${AT} Alert #43`,
		label: `the webhook run of ${new Date(AT).toISOString()} (execution 43)`,
	});
	expect(EDITOR.kind).toBe('editor');
});
