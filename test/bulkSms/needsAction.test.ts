/** Which of Send's output items come out again on Needs Action: a table over both outputs' shapes. */
import type { IDataObject } from 'n8n-workflow';

import { needsAction } from '../../nodes/BulkSms/operations/send/leftOut';

const entry = (reason: string, state?: string) => ({ input: '4477', item: 0, reason, state });

test.each<[string, IDataObject, boolean]>([
	['a row accepted', { send_outcome: 'accepted', reason: null }, false],
	['a row sent before', { send_outcome: 'sent before', reason: 'sent before: …' }, false],
	['a row in doubt', { send_outcome: 'in doubt' }, true],
	['a row whose outcome is unknown', { send_outcome: 'unknown' }, true],
	['a row not sent', { send_outcome: 'not sent' }, true],
	['a row refused', { send_outcome: 'not accepted' }, true],
	['a row that failed', { send_outcome: 'failed' }, true],
	['a row with a number that is not valid', { send_outcome: 'skipped', reason: 'too short' }, true],
	['a row opted out', { send_outcome: 'skipped', reason: 'opted out' }, false],
	['a row repeating an earlier one', { send_outcome: 'skipped', reason: 'duplicate' }, false],
	[
		'a batch accepted whole',
		{ send_outcome: 'accepted', skipped: [], dropped_by_service: 0 },
		false,
	],
	[
		'a batch the service took fewer numbers of',
		{ send_outcome: 'accepted', skipped: [], dropped_by_service: 2 },
		true,
	],
	[
		'a batch with a number not valid',
		{ send_outcome: 'accepted', skipped: [entry('too short')] },
		true,
	],
	[
		'a batch with a number opted out',
		{ send_outcome: 'accepted', skipped: [entry('opted out')] },
		false,
	],
	[
		'a batch holding back a number sent before',
		{ send_outcome: 'accepted', skipped: [entry('…', 'sent before')] },
		false,
	],
	[
		'a batch holding back a number in doubt',
		{ send_outcome: 'accepted', skipped: [entry('…', 'in doubt')] },
		true,
	],
	[
		'a batch held back whole, sent before',
		{ send_outcome: 'sent before', skipped: [entry('…', 'sent before')] },
		false,
	],
	[
		'nothing to send: only repeated rows',
		{ send_outcome: 'skipped', skipped: [entry('duplicate')] },
		false,
	],
])('%s: %s', (_, json, wanted) => {
	expect(needsAction(json)).toBe(wanted);
});
