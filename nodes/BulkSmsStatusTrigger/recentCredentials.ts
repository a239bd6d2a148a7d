/**
 * The callback credential as this process read it lately, for the check of every callback.
 *
 * Why: n8n reads a credential in a webhook call through an expression isolate of its own (its
 * credentials helper has no execution to lend one): a few milliseconds of the main process for
 * every callback, a third of what a callback costs in all (docs/benchmarks.md, "Callbacks"). Read
 * at most once every FRESH_MS instead, the secret a caller shows is compared with the one read
 * lately; one that does not match makes it read the credential again, so a new secret is taken
 * at once, and an old one is refused once a caller shows the new one, or FRESH_MS after the
 * change at most. Nothing is kept but in this process's memory; a failed read is not kept.
 */
import type { ICredentialDataDecryptedObject, IWebhookFunctions } from 'n8n-workflow';

const FRESH_MS = 10_000;

export interface CredentialRead {
	data: ICredentialDataDecryptedObject;
	/** Read earlier by another callback (else just now). */
	recent: boolean;
}

export class RecentCredentials {
	private readonly reads = new Map<
		string,
		{ at: number; data: Promise<ICredentialDataDecryptedObject> }
	>();

	/** The node's credential of this type: as read lately, or read now when `again` or too old. */
	async read(context: IWebhookFunctions, type: string, again = false): Promise<CredentialRead> {
		const key = `${type} ${context.getNode().credentials?.[type]?.id ?? ''}`;
		const kept = this.reads.get(key);
		if (!again && kept && Date.now() - kept.at < FRESH_MS) {
			return { data: await kept.data, recent: true };
		}
		const data = context.getCredentials(type);
		this.reads.set(key, { at: Date.now(), data });
		data.catch(() => this.reads.delete(key));
		return { data: await data, recent: false };
	}
}
