/** What Send's hint says of what it did not send now, by what the run met: a table. */
import { heldBackHint } from '../../nodes/BulkSms/operations/send/leftOut';
import type { HeldNumber, SendResults } from '../../nodes/BulkSms/operations/send/model';

const heldRun = (states: Array<Omit<HeldNumber, 'msisdn'>>): SendResults =>
	({
		send: {} as never,
		campaign: { label: "the Send node's last run, which was interrupted" } as never,
		results: [
			{
				outcome: 'held back',
				held: states.map((state, i) => ({ msisdn: `44770090000${i}`, ...state })),
			},
		],
	}) as SendResults;

const before = { state: 'sent before' as const };
const doubt = { state: 'in doubt' as const };

test.each<[string, SendResults[], RegExp | undefined]>([
	['nothing held back: no hint', [], undefined],
	[
		'numbers sent before only: how many, and no word of doubt',
		[heldRun([before, before])],
		/^Did not send again to 2 number\(s\) that the Send node's last run, which was interrupted sent this text before[^]*Send Each Number Once\.$/,
	],
	[
		'numbers in doubt: how many, and what to do',
		[heldRun([before, doubt])],
		/Did not send again to 1 number\(s\)[^]*1 number\(s\) are in doubt[^]*set Numbers In Doubt to Resend\.$/,
	],
	[
		'n8n ran Send only on the way to a later step: nothing was sent, and how to send',
		[
			heldRun([
				{ state: 'not sent', laterStep: 'Get Status' },
				{ ...before, laterStep: 'Get Status' },
			]),
		],
		/^n8n ran Send again only on the way to "Get Status"[^]*nothing was sent \(2 number\(s\)\); to send, execute Send itself or the whole workflow\.$/,
	],
])('%s', (_, sent, said) => {
	const hint = heldBackHint(sent);
	if (said === undefined) expect(hint).toBeUndefined();
	else expect(hint).toMatch(said);
	if (said && !/in doubt/.test(said.source)) expect(hint).not.toMatch(/in doubt/);
});
