/** What the body readers (body.ts, jsonLossless.ts, xmlGeneral.ts) share. */

/**
 * A body that cannot be read. The message says what the body is, in words that never quote it:
 * answers may hold personal data or an echoed password.
 */
export class BodyError extends Error {
	constructor(reason: string) {
		super(reason);
		this.name = 'BodyError';
	}
}

/** Service answers nest 3 levels deep; anything near this is hostile or broken, not an answer. */
export const MAX_NESTING = 100;
