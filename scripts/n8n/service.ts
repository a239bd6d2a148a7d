/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/require-node-api-error
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * The Bulk SMS service the demo and the editor talk to: the sandbox, started here with a clock
 * that finishes messages in 3 s so the send-and-track loop ends after a check or two; or, when
 * BULKSMS_BASE_URL is set, that service with BULKSMS_USERNAME / BULKSMS_PASSWORD (and optional
 * BULKSMS_TIME_ZONE), and nothing is started.
 */
import { DEMO_ACCOUNT, startSandbox, type Sandbox } from '../../sandbox/server';
import type { ServiceAccount } from './workflows';

/** Sandbox settings of the demo, the editor and the e2e run of the example: final after 3 s. */
export const DEMO_SANDBOX = { finalAfterMs: 3000 } as const;

export interface Service {
	account: ServiceAccount;
	/** set when we started the sandbox (the real service has no test controls) */
	sandbox?: Sandbox;
	/** for people: where it is, never the password */
	description: string;
	stop(): Promise<void>;
}

/**
 * The service of BULKSMS_BASE_URL, or a sandbox: on `sandboxPort` (0: a free one), or on a free
 * one when another process holds that port (its base URL says where it is).
 */
export async function startService(
	env: NodeJS.ProcessEnv = process.env,
	sandboxPort = 0,
): Promise<Service> {
	if (env.BULKSMS_BASE_URL) return realService(env, env.BULKSMS_BASE_URL);
	const sandbox = await startSandboxOn(sandboxPort);
	return {
		account: sandboxAccount(sandbox),
		sandbox,
		description: `sandbox at ${sandbox.baseUrl} (account demo, messages final 3 s after sending; admin view ${sandbox.baseUrl}/_sandbox/batches)`,
		stop: () => sandbox.stop(),
	};
}

async function startSandboxOn(port: number): Promise<Sandbox> {
	try {
		return await startSandbox({ ...DEMO_SANDBOX, port });
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
		return startSandbox({ ...DEMO_SANDBOX, port: 0 });
	}
}

/** The sandbox's demo account, as the n8n credential needs it. */
export function sandboxAccount(sandbox: Sandbox): ServiceAccount {
	const { username, password } = DEMO_ACCOUNT;
	return { baseUrl: sandbox.baseUrl, username, password };
}

function realService(env: NodeJS.ProcessEnv, baseUrl: string): Service {
	const { BULKSMS_USERNAME: username, BULKSMS_PASSWORD: password } = env;
	if (!username || !password) {
		throw new Error(
			'BULKSMS_BASE_URL is set: set BULKSMS_USERNAME and BULKSMS_PASSWORD too (or unset it to use the sandbox)',
		);
	}
	const timeZone = env.BULKSMS_TIME_ZONE || 'UTC';
	return {
		account: { baseUrl, username, password, timeZone },
		description: `${baseUrl} as ${username} (time zone ${timeZone}); real messages, real credits`,
		stop: async () => {},
	};
}
