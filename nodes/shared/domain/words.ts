/** Numbers and lists in error messages, written one way everywhere. */

/** 12345 → "12,345" */
export function count(n: number): string {
	return n.toLocaleString('en-US');
}

/** "a, b, c, d, e and 4,995 more": the first few named, the rest counted. */
export function listFew(values: readonly unknown[], few = 5, separator = ', '): string {
	const shown = values.slice(0, few).map(String).join(separator);
	const more = values.length - few;
	return more > 0 ? `${shown} and ${count(more)} more` : shown;
}
