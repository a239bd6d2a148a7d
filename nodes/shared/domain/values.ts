/** Small checks on values of unknown shape, shared by the readers of answers and stored state. */

/** A plain object (not null, not a list): what JSON and the XML reader give for an element. */
export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What `work` returned or threw, so that the caller can word a failure outside a catch. */
export function attempt<T>(work: () => T): { value: T } | { thrown: unknown } {
	try {
		return { value: work() };
	} catch (thrown) {
		return { thrown };
	}
}
