/**
 * Who may call the Bulk SMS Status Trigger. The secret it expects comes from one of its
 * credentials (kept encrypted by n8n), or, in workflows saved before those existed, from node
 * parameters (kept in the workflow). It is checked when the workflow is activated (a setup that
 * could only refuse every callback is refused then, with a sentence) and for every callback.
 */
import { createHash, timingSafeEqual } from 'crypto';
import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IHookFunctions,
	INodeCredentialTestResult,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { kind } from '../shared/domain/fieldReaders';

const SECRET_CREDENTIAL = 'bulkSmsCallbackApi';
const BASIC_AUTH_CREDENTIAL = 'bulkSmsCallbackBasicAuthApi';

/**
 * The Authentication parameter's values. `token` and `basicAuth` read the secret from node
 * parameters: the methods of version 1, kept so that workflows saved with them work as before.
 */
export type Authentication =
	| 'secretCredential'
	| 'basicAuthCredential'
	| 'none'
	| 'token'
	| 'basicAuth';

export const LEGACY_AUTHENTICATION: Authentication[] = ['token', 'basicAuth'];

/** What a caller must show: nothing, the `?token=` secret, or Basic `user:password`. */
type Expected =
	| { method: 'none' }
	| { method: 'token'; secret: string }
	| { method: 'basic'; userPassword: string };

/** What is expected, or why nothing can be (the setup is wrong). */
type Setup = Expected | { problem: string };

type Context = IHookFunctions | IWebhookFunctions;

// ---------------------------------------------------------------- the setup

/** Run at activation and for "Test this trigger": a setup that cannot work is refused at once. */
export async function checkCallbackSetup(this: IHookFunctions): Promise<void> {
	const setup = await settledSetup.call(this);
	if ('problem' in setup) {
		throw new NodeOperationError(this.getNode(), `Bulk SMS Status Trigger: ${setup.problem}`);
	}
}

/**
 * readSetup, never throwing: an expression that fails is a setup problem like any other. Its
 * message is left out, since the expression may hold the secret itself.
 */
async function settledSetup(this: Context): Promise<Setup> {
	return await readSetup.call(this).catch(() => ({
		problem: 'the authentication settings cannot be read: an expression in them fails',
	}));
}

async function readSetup(this: Context): Promise<Setup> {
	const method = this.getNodeParameter('authentication', 'token') as Authentication;
	switch (method) {
		case 'none':
			return { method: 'none' };
		case 'token':
			return tokenSetup(this.getNodeParameter('secret', ''), 'the Secret');
		case 'basicAuth':
			return basicSetup(
				this.getNodeParameter('username', ''),
				this.getNodeParameter('password', ''),
			);
		case 'secretCredential': {
			const read = await credentialData.call(this, SECRET_CREDENTIAL);
			return 'problem' in read ? read : tokenSetup(read.data.secret, "the credential's Secret");
		}
		case 'basicAuthCredential': {
			const read = await credentialData.call(this, BASIC_AUTH_CREDENTIAL);
			return 'problem' in read ? read : basicSetup(read.data.user, read.data.password);
		}
		default:
			return { problem: `Authentication "${String(method)}" is not known to this version` };
	}
}

/** The credential's fields; n8n throws when none is chosen, which is a setup problem here. */
async function credentialData(
	this: Context,
	type: string,
): Promise<{ data: Record<string, unknown> } | { problem: string }> {
	const read = await this.getCredentials(type).then(
		(data) => ({ data: data as Record<string, unknown> }),
		() => undefined,
	);
	return read ?? { problem: 'no credential with the secret is chosen: choose or create one' };
}

function tokenSetup(secret: unknown, name: string): Setup {
	const problem = secretProblem(secret, name);
	return problem ? { problem } : { method: 'token', secret: secret as string };
}

function basicSetup(user: unknown, password: unknown): Setup {
	const problem = userProblem(user) ?? secretProblem(password, 'the Basic Auth password');
	return problem
		? { problem }
		: { method: 'basic', userPassword: `${String(user)}:${String(password)}` };
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

// ---------------------------------------------------------------- each callback

/**
 * Undefined when the caller proved itself; else what n8n's log should say. The caller is told
 * none of it (see receiveCallback): not the method, nor whether a secret is set.
 */
export async function callerProblem(this: IWebhookFunctions): Promise<string | undefined> {
	const setup = await settledSetup.call(this);
	if ('problem' in setup) return `the trigger's setup is wrong: ${setup.problem}`;
	if (setup.method === 'none') return undefined;
	if (setup.method === 'basic') {
		const given = basicCredentials(this.getHeaderData().authorization);
		if (given === undefined) return 'no HTTP Basic credentials';
		return sameSecret(given, setup.userPassword) ? undefined : 'wrong Basic user or password';
	}
	const token = (this.getQueryData() as Record<string, unknown>).token;
	if (typeof token !== 'string' || token === '') return 'no ?token= in the callback URL';
	return sameSecret(token, setup.secret) ? undefined : 'wrong token';
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
