import { readBatchId } from '../../nodes/shared/domain/batchId';

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
		[9007199254740991, '9007199254740991'],
		[9223372036854775807n, '9223372036854775807'],
	])('%p → %s', (given, batchId) => {
		expect(readBatchId(given)).toEqual({ batchId });
	});

	it.each<[unknown, RegExp]>([
		['', /empty/],
		['12a', /digits only/],
		['-5', /digits only/],
		['123456789012345678901', /digits only/],
		[9007199254740993, /may have lost digits/],
	])('%p is refused: %s', (given, problem) => {
		expect(readBatchId(given)).toMatchObject({ problem: expect.stringMatching(problem) });
	});
});
