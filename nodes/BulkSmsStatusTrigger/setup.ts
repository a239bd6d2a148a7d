/**
 * What the Status Trigger needs before it takes a callback, from its credentials: who may call
 * (the secret of its Bulk SMS Callback API or Basic Auth API credential, or None), and the time
 * zone of delivery dates (the optional Bulk SMS API credential; UTC without it).
 *
 * Checked when the workflow is activated (n8n runs checkExists then, and for "Test this
 * trigger"): a setup that could only refuse every callback, or lose every report, is refused with
 * a sentence. Checked again for every callback, against the credentials as this process read them
 * lately: n8n reads a credential in a webhook call through an expression isolate of its own, a few
 * milliseconds of the main process (docs/benchmarks.md, "Callbacks"), so each is read at most once
 * every FRESH_MS, whatever the callers show: a wrong secret costs no more than the right one, and a
 * new secret or zone is taken within FRESH_MS.
 */
import { createHash, timingSafeEqual } from 'crypto';
import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IHookFunctions,
	INodeCredentialTestResult,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { kind } from '../shared/domain/fieldReaders';
import { isValidTimeZone } from '../shared/domain/zoneOffsets';
import { CREDENTIAL } from '../shared/transport';
import { reportFilter } from './parameters';

const SECRET_CREDENTIAL = 'bulkSmsCallbackApi';
const BASIC_AUTH_CREDENTIAL = 'bulkSmsCallbackBasicAuthApi';

/** What a caller must show: nothing, the `?token=` secret, or Basic `user:password`. */
type Expected =
	| { method: 'none' }
	| { method: 'token'; secret: string }
	| { method: 'basic'; userPassword: string };

type Found<T> = T | { problem: string };

/** Reads a credential of the node: at once (activation), or as read lately (each callback). */
type CredentialReader = (type: string) => Promise<ICredentialDataDecryptedObject>;

type Context = IHookFunctions | IWebhookFunctions;

// ---------------------------------------------------------------- at activation

/** A setup that cannot work is refused at once: its secret, its time zone, or its Batch IDs. */
export async function checkCallbackSetup(this: IHookFunctions): Promise<void> {
	reportFilter(this);
	const read: CredentialReader = async (type) => await this.getCredentials(type);
	for (const found of [await expectedCaller.call(this, read), await timeZone.call(this, read)]) {
		if (typeof found === 'object' && 'problem' in found) {
			throw new NodeOperationError(this.getNode(), `Bulk SMS Status Trigger: ${found.problem}`);
		}
	}
}

// ---------------------------------------------------------------- each callback

/** What a callback meets: refused (n8n's log says why), a setup that loses it, or its zone. */
export type CallbackSetup = { refused: string } | { broken: string } | { timeZone: string };

/**
 * Checks the caller, then the zone the reports' dates are read in. The caller is told nothing of
 * a refusal (see webhook.ts), and learns of a broken zone only once it proved itself.
 */
export async function callbackSetup(
	this: IWebhookFunctions,
	credentials: RecentCredentials,
): Promise<CallbackSetup> {
	const read: CredentialReader = async (type) => await credentials.read(this, type);
	const expected = await expectedCaller.call(this, read);
	if ('problem' in expected)
		return { refused: `the trigger's setup is wrong: ${expected.problem}` };
	const refused = callerProblem.call(this, expected);
	if (refused) return { refused };
	const zone = await timeZone.call(this, read);
	return typeof zone === 'string' ? { timeZone: zone } : { broken: zone.problem };
}

function callerProblem(this: IWebhookFunctions, expected: Expected): string | undefined {
	if (expected.method === 'none') return undefined;
	if (expected.method === 'basic') {
		const given = basicCredentials(this.getHeaderData().authorization);
		if (given === undefined) return 'no HTTP Basic credentials';
		return sameSecret(given, expected.userPassword) ? undefined : 'wrong Basic user or password';
	}
	const token = (this.getQueryData() as Record<string, unknown>).token;
	if (typeof token !== 'string' || token === '') return 'no ?token= in the callback URL';
	return sameSecret(token, expected.secret) ? undefined : 'wrong token';
}

/** Compared in constant time (over digests, so a length difference says nothing either). */
function sameSecret(given: string, expected: string): boolean {
	const digest = (text: string) => createHash('sha256').update(text).digest();
	return timingSafeEqual(digest(given), digest(expected));
}

function basicCredentials(header: string | undefined): string | undefined {
	const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
	if (!match) return undefined;
	const decoded = Buffer.from(match[1], 'base64').toString('utf8');
	return decoded.includes(':') ? decoded : undefined;
}

const FRESH_MS = 10_000;

/** The node's credentials as this process read them lately (see the header). */
export class RecentCredentials {
	private readonly reads = new Map<
		string,
		{ at: number; data: Promise<ICredentialDataDecryptedObject> }
	>();

	async read(context: IWebhookFunctions, type: string): Promise<ICredentialDataDecryptedObject> {
		const key = `${type} ${context.getNode().credentials?.[type]?.id ?? ''}`;
		const kept = this.reads.get(key);
		if (kept && Date.now() - kept.at < FRESH_MS) return await kept.data;
		const data = context.getCredentials(type);
		this.reads.set(key, { at: Date.now(), data });
		// A failed read is not kept: the next callback tries again.
		data.catch(() => this.reads.delete(key));
		return await data;
	}
}

// ---------------------------------------------------------------- the setup, read

/**
 * What a caller must show, or why nothing can be. An expression that fails is a problem like any
 * other; its message is left out, since the expression may hold the secret itself.
 */
async function expectedCaller(this: Context, read: CredentialReader): Promise<Found<Expected>> {
	try {
		const method = this.getNodeParameter('authentication', 'secretCredential') as string;
		if (method === 'none') return { method: 'none' };
		if (method === 'basicAuthCredential') {
			const found = await credentialData(read, BASIC_AUTH_CREDENTIAL);
			return 'problem' in found ? found : basicSetup(found.data.user, found.data.password);
		}
		if (method !== 'secretCredential')
			return { problem: `Authentication "${method}" is not known to this version` };
		const found = await credentialData(read, SECRET_CREDENTIAL);
		return 'problem' in found ? found : tokenSetup(found.data.secret);
	} catch {
		return { problem: 'the authentication settings cannot be read: an expression in them fails' };
	}
}

/** The credential's fields; n8n throws when none is chosen, which is a setup problem here. */
async function credentialData(
	read: CredentialReader,
	type: string,
): Promise<Found<{ data: Record<string, unknown> }>> {
	const found = await read(type).then(
		(data) => ({ data }),
		() => undefined,
	);
	return found ?? { problem: 'no credential with the secret is chosen: choose or create one' };
}

function tokenSetup(secret: unknown): Found<Expected> {
	const problem = secretProblem(secret, "the credential's Secret");
	return problem ? { problem } : { method: 'token', secret: secret as string };
}

function basicSetup(user: unknown, password: unknown): Found<Expected> {
	const problem = userProblem(user) ?? secretProblem(password, 'the Basic Auth password');
	return problem
		? { problem }
		: { method: 'basic', userPassword: `${String(user)}:${String(password)}` };
}

/**
 * The zone of delivery dates: the Bulk SMS credential's Service Time Zone, or UTC without that
 * credential. A zone that does not exist would fail every report's date.
 */
async function timeZone(this: Context, read: CredentialReader): Promise<Found<string>> {
	if (!this.getNode().credentials?.[CREDENTIAL]) return 'UTC';
	const credential = await read(CREDENTIAL).catch(() => undefined);
	if (!credential) {
		return {
			problem:
				'the Bulk SMS credential chosen for the time zone of delivery dates cannot be read: choose it again, or remove it to read dates in UTC',
		};
	}
	const zone = String(credential.timeZone || 'UTC').trim();
	if (isValidTimeZone(zone)) return zone;
	return {
		problem: `the Service Time Zone of the Bulk SMS credential, "${zone.slice(0, 40)}", is not a time zone: use an IANA name such as UTC, Europe/London or America/New_York`,
	};
}

/**
 * Why a secret cannot be used, or undefined. Empty or only spaces, every callback would be
 * refused (or, worse, a guessable one accepted); a number or an object from an expression is
 * a mistake in the workflow, said here rather than failing every callback.
 */
export function secretProblem(value: unknown, name: string): string | undefined {
	if (value === undefined || value === null) {
		return `${name} gives nothing: set it, or make its expression give the secret as text`;
	}
	if (typeof value !== 'string') {
		return `${name} is ${kind(value)}, not text: make its expression give the secret as text`;
	}
	if (value.trim() !== '') return undefined;
	return `${name} is ${value === '' ? 'empty' : 'only spaces'}: set a long random value (e.g. the output of openssl rand -hex 24) and give it to the service with the callback URL`;
}

/** HTTP Basic splits user and password at the first colon, so a user cannot contain one. */
export function userProblem(user: unknown): string | undefined {
	if (typeof user !== 'string') {
		return `the Basic Auth user is ${kind(user)}, not text: make its expression give text`;
	}
	if (user.trim() === '') return 'the Basic Auth user is empty: set one';
	if (user.includes(':')) return 'the Basic Auth user contains ":", which HTTP Basic cannot carry';
	return undefined;
}

// ---------------------------------------------------------------- credential tests

/** The Bulk SMS Callback API credential's test: the same rule as activation. */
export async function callbackSecretTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	return verdict(secretProblem(credential.data?.secret, 'the Secret'));
}

/** The Bulk SMS Callback Basic Auth API credential's test: the same rules as activation. */
export async function callbackBasicAuthTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const data = credential.data ?? {};
	return verdict(userProblem(data.user) ?? secretProblem(data.password, 'the password'));
}

function verdict(problem: string | undefined): INodeCredentialTestResult {
	if (problem) return { status: 'Error', message: capitalised(problem) };
	return {
		status: 'OK',
		message: 'Can be used: the service must send it with every callback (nothing is sent now)',
	};
}

function capitalised(sentence: string): string {
	return sentence.charAt(0).toUpperCase() + sentence.slice(1);
}
