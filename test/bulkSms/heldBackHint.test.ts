/** What Send's hint says of its record, by what the run met: a table. */
import { heldBackHint } from '../../nodes/BulkSms/operations/send/output';
import type { SendResults } from '../../nodes/BulkSms/operations/send/model';

const editor = { kind: 'editor' as const, id: 'editor', label: "the editor's runs" };
const heldRun = (states: Array<'sent before' | 'in doubt'>): SendResults =>
	({
		send: {} as never,
		campaign: editor,
		results: [
			{
				outcome: 'held back',
				held: states.map((state, i) => ({ msisdn: `44770090000${i}`, state })),
			},
		],
	}) as SendResults;

test.each<[string, SendResults[], { dropped: number } | undefined, RegExp | undefined]>([
	['nothing held back, a record with room: no hint', [], { dropped: 0 }, undefined],
	[
		'numbers held back: how many, and which are in doubt',
		[heldRun(['sent before', 'sent before', 'in doubt'])],
		undefined,
		/^Held back 3 number\(s\) that the editor's runs sent before: 2 accepted then, 1 in doubt/,
	],
	[
		'a full record: what n8n dropped, and what to do',
		[],
		{ dropped: 1_234 },
		/^Send's record is full: n8n dropped its oldest 1,234 values\. .*new Campaign Key/,
	],
])('%s', (_, sent, record, said) => {
	const hint = heldBackHint(sent, record);
	if (said === undefined) expect(hint).toBeUndefined();
	else expect(hint).toMatch(said);
});
