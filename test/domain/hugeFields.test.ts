/**
 * Fields of megabytes, from a hostile answer or a trigger's memory of a batch of millions: each
 * read gives a value or a sentence, never "Maximum call stack size exceeded" from a regular
 * expression that ran out of backtracking stack.
 */
import { readStatusAnswer, readSendAnswer } from '../../nodes/shared/domain/responses';
import { knownCount, readState } from '../../nodes/shared/domain/watchState';

const MANY_DIGITS = '7'.repeat(20_000_000);

it('a network_id of 20 million digits is refused in words', () => {
	const answer = `<sms_get_status><reports><delivery_report><msisdn>447700900123</msisdn><delivery_date></delivery_date><network_id>${MANY_DIGITS}</network_id><status>ENROUTE</status><batch_id>1</batch_id><gateway_session_id>2</gateway_session_id></delivery_report></reports></sms_get_status>`;
	expect(() => readStatusAnswer(answer)).toThrow(/network_id: expected/);
});

it('a count (batch_size) of 20 million digits is refused in words', () => {
	const answer = `<sms_send><accepted>true</accepted><batch_id>1</batch_id><batch_size>${MANY_DIGITS}</batch_size><receive_updates>false</receive_updates><remaining_credits>1</remaining_credits></sms_send>`;
	expect(() => readSendAnswer(answer)).toThrow(/batch_size: expected/);
});

it('remembers a batch of three million numbers', () => {
	const numbers = Array.from({ length: 3_000_000 }, (_, i) => ((i % 1000) + 1).toString(36)).join(
		',',
	);
	const runs = `0,${(3_000_000).toString(36)}`; // every one pending
	const state = readState({ v: 2, g: 1, b: { '1': { k: numbers, r: runs } }, f: [] });
	expect(state.b).toEqual({ '1': { k: numbers, r: runs } });
	expect(knownCount(state.b['1'])).toBe(3_000_000);
});

it('starts a batch over when its stored runs claim more destinations than it has', () => {
	const state = readState({ v: 2, g: 1, b: { '1': { k: '1,2', r: '0,zzzzzz' } }, f: [] });
	expect(state.b).toEqual({});
});
