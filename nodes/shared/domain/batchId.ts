/** A batch id is carried as a string of digits from the wire to the output and back. */
export type BatchIdReading = { batchId: string } | { problem: string; hint: string };

const HINT = 'Use the batch_id that Send returned, as text, e.g. {{ $json.batch_id }}.';

/**
 * The service reads batch_id as an integer, so "0123" and "123" are one batch: this is the form
 * it writes itself (no leading zeros; "0" stays "0"), from the digits, never through a number.
 * Carrying it everywhere means the trigger watches such ids once, and its items, summaries and
 * memory use the same id as the service's reports.
 */
function canonical(digits: string): string {
	return digits.replace(/^0+(?=\d)/, '');
}

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
	if (/^\d{1,20}$/.test(text)) return { batchId: canonical(text) };
	return {
		problem:
			text === ''
				? 'The Batch ID is empty'
				: `"${text.slice(0, 40)}" is not a batch ID: it must be digits only`,
		hint: HINT,
	};
}
