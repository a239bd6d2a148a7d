/** Which campaign a run of Send continues, by what n8n says of the run: the rule as a table. */
import { campaignRule, type RunStart } from '../../nodes/BulkSms/operations/send/record/campaign';

const run = (mode: string, source = mode, retried?: string): RunStart => ({
	mode,
	context: { source },
	retried,
});

test.each<[string, RunStart, string, ReturnType<typeof campaignRule>]>([
	['a webhook call', run('webhook'), '', { kind: 'new' }],
	['a schedule tick', run('trigger'), '', { kind: 'new' }],
	['n8n execute', run('cli'), '', { kind: 'new' }],
	['a sub-workflow call', run('integrated'), '', { kind: 'new' }],
	['an error workflow', run('error'), '', { kind: 'new' }],
	['an n8n that gives no execution context', { mode: 'webhook' }, '', { kind: 'new' }],
	['the editor (Execute workflow, Execute step on Send)', run('manual'), '', { kind: 'editor' }],
	['the test URL of a webhook', { mode: 'manual' }, '', { kind: 'editor' }],
	[
		'a Retry: the campaign its execution names',
		run('retry', 'webhook', 'slot 4'),
		'',
		{ kind: 'retry', campaign: 'slot 4' },
	],
	[
		'a Retry of an editor run',
		run('retry', 'manual', 'slot 2'),
		'',
		{ kind: 'retry', campaign: 'slot 2' },
	],
	[
		'a Retry of a run that opened no record: it sent nothing by it',
		run('retry', 'webhook'),
		'',
		{ kind: 'new' },
	],
	['a Campaign Key, from production', run('webhook'), 'spring', { kind: 'key', key: 'spring' }],
	['a Campaign Key, from the editor', run('manual'), 'spring', { kind: 'key', key: 'spring' }],
	[
		'a Campaign Key, in a Retry',
		run('retry', 'webhook', 'slot 1'),
		'spring',
		{ kind: 'key', key: 'spring' },
	],
])('%s', (_, start, key, verdict) => {
	expect(campaignRule(start, key)).toEqual(verdict);
});
