/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	@n8n/community-nodes/require-node-api-error,
	no-console
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * `npm run sandbox:callback-url -- URL`: points a sandbox that is already running (the one of
 * `npm run editor`, or of `npm run sandbox`) at a callback URL, typically a Bulk SMS Status
 * Trigger's Production URL with `?token=` and its secret. `npm run sandbox -- --callback-url`
 * sets the URL of a sandbox it starts; this command changes a running one, through its admin API
 * (`PUT /_sandbox/accounts/{user}`, sandbox/README.md), so nothing is restarted and the n8n
 * credential keeps its Base URL.
 */
import { parseArgs } from 'node:util';
import { SANDBOX_PORT } from './options';

export const USAGE = `Usage: npm run sandbox:callback-url -- [--sandbox URL] [--user NAME] (URL | --off)

  URL              where the sandbox POSTs the status callbacks of the account's next batches,
                   e.g. a Bulk SMS Status Trigger's Production URL followed by ?token=<secret>
  --off            no callbacks any more (receive_updates false on the next sends)
  --sandbox URL    the running sandbox (SANDBOX_URL; http://127.0.0.1:${SANDBOX_PORT}, where npm run editor
                   and npm run sandbox start it)
  --user NAME      the sandbox account whose callbacks change (demo)`;

export interface CallbackUrlChange {
	/** the sandbox's address, as its Base URL */
	sandbox: string;
	user: string;
	/** null: no callbacks */
	url: string | null;
}

export function parseCallbackUrlArgs(argv: string[], env: NodeJS.ProcessEnv): CallbackUrlChange {
	const { values, positionals } = parseArgs({
		args: argv,
		options: {
			sandbox: { type: 'string' },
			user: { type: 'string' },
			off: { type: 'boolean' },
		},
		allowPositionals: true,
	});
	if (positionals.length > 1) throw new Error(`one URL only, got ${positionals.length}`);
	const [url] = positionals;
	if (Boolean(values.off) === (url !== undefined)) throw new Error('give the callback URL, or --off');
	const sandbox = values.sandbox ?? env.SANDBOX_URL ?? `http://127.0.0.1:${SANDBOX_PORT}`;
	return { sandbox: sandbox.replace(/\/+$/, ''), user: values.user ?? 'demo', url: url ?? null };
}

interface AccountsAnswer {
	accounts?: Array<{ username: string; callback_url?: string }>;
	error?: string;
}

/** Changes the account's callback URL; returns what the sandbox now does, in a sentence. */
export async function setCallbackUrl(change: CallbackUrlChange): Promise<string> {
	const { sandbox, user, url } = change;
	const known = await admin(sandbox, 'GET', '/_sandbox/accounts');
	const names = (known.accounts ?? []).map((account) => account.username);
	if (!names.includes(user)) {
		throw new Error(
			`the sandbox at ${sandbox} has no account "${user}" (it has: ${names.join(', ')})`,
		);
	}
	await admin(sandbox, 'PUT', `/_sandbox/accounts/${encodeURIComponent(user)}`, {
		callback_url: url,
	});
	if (url === null)
		return `The sandbox at ${sandbox} no longer calls back the batches ${user} sends next.`;
	return [
		`The sandbox at ${sandbox} now calls back the batches ${user} sends next at`,
		`  ${url}`,
		'(a batch keeps the callback URL it was sent with). The workflow must be published:',
		'a Production URL takes callbacks only while it is.',
	].join('\n');
}

async function admin(
	sandbox: string,
	method: string,
	route: string,
	body?: unknown,
): Promise<AccountsAnswer> {
	let response: Response;
	try {
		response = await fetch(`${sandbox}${route}`, {
			method,
			headers: { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
	} catch {
		throw new Error(
			`no sandbox answers at ${sandbox}: start one (npm run editor, or npm run sandbox), or give its address with --sandbox`,
		);
	}
	const text = await response.text();
	let answer: AccountsAnswer;
	try {
		answer = JSON.parse(text) as AccountsAnswer;
	} catch {
		throw new Error(
			`${sandbox} is not a sandbox with its admin API (${method} ${route} answered ${response.status})`,
		);
	}
	if (!response.ok)
		throw new Error(answer.error ?? `${method} ${route} answered ${response.status}`);
	return answer;
}

async function main(): Promise<void> {
	const argv = process.argv.slice(2);
	if (argv.includes('--help')) return void console.log(USAGE);
	let change: CallbackUrlChange;
	try {
		change = parseCallbackUrlArgs(argv, process.env);
	} catch (error) {
		console.error(`${(error as Error).message}\n\n${USAGE}`);
		process.exit(2);
	}
	console.log(await setCallbackUrl(change));
}

if (require.main === module) {
	main().catch((error) => {
		console.error(`sandbox:callback-url: ${(error as Error).message}`);
		process.exit(1);
	});
}
