/** Small helpers on values of unknown shape, shared by the domain's readers. */

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

/** Untrusted text, shortened for a message. */
export function excerpt(text: string): string {
	return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
