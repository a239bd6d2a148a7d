/** A batch id is carried as a string of digits from the wire to the output and back. */
export type BatchIdReading = { batchId: string } | { problem: string; hint: string };

const HINT = 'Use the batch_id that Send returned, as text, e.g. {{ $json.batch_id }}.';

export function readBatchId(value: unknown): BatchIdReading {
	if (typeof value === 'bigint' && value >= 0n) return { batchId: value.toString() };
	if (typeof value === 'number') {
		// Past 2^53 the digits were already changed before we saw them.
		if (Number.isSafeInteger(value) && value >= 0) return { batchId: String(value) };
		return {
			problem: `Batch ID ${value} arrived as a number and may have lost digits`,
			hint: `Ids longer than 15 digits do not survive as numbers. ${HINT}`,
		};
	}
	const text = typeof value === 'string' ? value.trim() : '';
	if (/^\d{1,20}$/.test(text)) return { batchId: text };
	return {
		problem:
			text === ''
				? 'The Batch ID is empty'
				: `"${text.slice(0, 40)}" is not a batch ID: it must be digits only`,
		hint: HINT,
	};
}
