/**
 * What of a service's answer may be shown in an error: a short excerpt or the service's own
 * reason, bounded in length and with the account's secrets blanked before the cut.
 */
import { blankSecrets } from './secrets';

const REASON_LENGTH = 2000;

/**
 * The service's own reason for refusing a send, as it may be shown: secrets blanked, and cut
 * to 2,000 characters (a reason is a sentence; a hostile one may be megabytes).
 */
export function blankedReason(reason: string, secrets: readonly string[]): string {
	if (reason.length <= REASON_LENGTH) return blankSecrets(reason, secrets);
	const head = blankSecrets(reason.slice(0, REASON_LENGTH + marginFor(secrets)), secrets);
	return `${head.slice(0, REASON_LENGTH)}…`;
}

/** Past a cut, enough text for any escaping of a secret that starts before it (12 per char). */
function marginFor(secrets: readonly string[]): number {
	return 12 * secrets.reduce((most, secret) => Math.max(most, secret.length), 0) + 1;
}

const EXCERPT_LENGTH = 120;

/**
 * A short, single-line view of a body for error messages, secrets blanked before it is cut.
 * Only the start of the body is blanked (a large body is not scanned whole): the part that
 * becomes the excerpt, and enough after it for any escaping of a secret that starts inside.
 */
export function excerpt(body: string, secrets: readonly string[]): string {
	const head = body.slice(0, excerptSourceLength(body) + marginFor(secrets));
	const line = blankSecrets(head, secrets).replace(/\s+/g, ' ').trim();
	if (line === '') return '(empty)';
	return line.length > EXCERPT_LENGTH ? `${line.slice(0, EXCERPT_LENGTH)}…` : line;
}

/** How many characters of the body make the excerpt once whitespace runs are collapsed. */
function excerptSourceLength(body: string): number {
	let shown = 0;
	let index = 0;
	for (; index < body.length && shown <= EXCERPT_LENGTH; index++) {
		if (!/\s/.test(body[index]) || !/\s/.test(body[index - 1] ?? 'x')) shown++;
	}
	return index;
}
