import { batchIdDigits, idDigits, readBatchId } from '../../nodes/shared/domain/batchId';
import { readSendResponse, readStatusResponse } from '../../nodes/shared/domain/responses';

describe('readBatchId: the id as the service writes it, digits exact', () => {
	it.each<[unknown, string]>([
		['123', '123'],
		[' 123 ', '123'],
		['0123', '123'],
		['000123', '123'],
		['100', '100'],
		['0', '0'],
		['000', '0'],
		['09007199254740993', '9007199254740993'],
		['9223372036854775807', '9223372036854775807'],
		['9999999999999999999', '9999999999999999999'],
		['00009999999999999999999', '9999999999999999999'],
		[9007199254740991, '9007199254740991'],
		[9223372036854775807n, '9223372036854775807'],
	])('%p → %s', (given, batchId) => {
		expect(readBatchId(given)).toEqual({ batchId });
	});

	it.each<[unknown, RegExp]>([
		['', /empty/],
		[null, /empty/],
		['12a', /"12a" is not a batch ID: it must be digits only/],
		['-5', /digits only/],
		[-5, /-5 is not a batch ID: it must be digits only/],
		[1.5, /digits only/],
		[true, /true is not a batch ID/],
		[Object.create(null), /An object is not a batch ID/],
		[['1'], /A list is not a batch ID/],
		['12345678901234567890', /it has 20 digits, more than the 19 the service uses/],
		['123456789012345678901', /it has 21 digits/],
		[Number('9007199254740993'), /may have lost digits/],
	])('%p is refused: %s', (given, problem) => {
		expect(readBatchId(given)).toMatchObject({ problem: expect.stringMatching(problem) });
	});
});

describe('one reader for batch ids from users and from the wire', () => {
	const report = (batchId: unknown) => ({
		batch_id: batchId,
		msisdn: '447700900123',
		status: 'DELIVRD',
		network_id: 1,
		gateway_session_id: '0042',
	});
	const sendAnswer = (batchId: unknown) => ({
		accepted: true,
		batch_id: batchId,
		batch_size: 1,
		receive_updates: false,
		remaining_credits: 1,
	});

	// Before, the wire kept "0123" while a user's "0123" became "123": a summary per batch
	// could then name another id than its reports.
	it.each<[unknown]>([['0123'], ['123'], [123], [' 000123 '], ['9223372036854775807'], ['0']])(
		'%p reads the same from a user, a send answer and a report',
		(given) => {
			const fromUser = readBatchId(given);
			expect(fromUser).toHaveProperty('batchId');
			const batchId = (fromUser as { batchId: string }).batchId;
			expect(readSendResponse(sendAnswer(given)).batch_id).toBe(batchId);
			expect(readStatusResponse({ reports: [report(given)] })[0].batch_id).toBe(batchId);
			expect(batchIdDigits(given)).toBe(batchId);
		},
	);

	it('a 20-digit batch_id on the wire is refused: the interface allows 19', () => {
		expect(() => readSendResponse(sendAnswer('12345678901234567890'))).toThrow(
			'send response: batch_id: expected at most 19 digits, got 20',
		);
		expect(() => readStatusResponse({ reports: [report('12345678901234567890')] })).toThrow(
			'reports[0].batch_id: expected at most 19 digits, got 20',
		);
	});

	it('gateway_session_id keeps its digits exactly: no canonical form, no length limit', () => {
		const long = '000123456789012345678901234567890';
		const [read] = readStatusResponse({
			reports: [{ ...report('1'), gateway_session_id: long }],
		});
		expect(read.gateway_session_id).toBe(long);
		expect(idDigits(long)).toBe(long);
	});
});
