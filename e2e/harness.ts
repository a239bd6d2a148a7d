/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/require-node-api-error
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * What every e2e test starts from: the sandbox (so the nodes talk to a real HTTP service), a
 * fresh n8n user folder with the package tarball installed the way n8n installs it, and the
 * credential the examples refer to. Everything is stopped by `stop()`.
 */
import type { SandboxOptions } from '../sandbox/options';
import { startSandbox, type QueuedFault, type Sandbox } from '../sandbox/server';
import { N8nInstance } from '../scripts/n8n/instance';
import { credential } from '../scripts/n8n/workflows';
import { sandboxAccount } from '../scripts/n8n/service';
import { packageTarball } from './package-under-test';

export interface Harness {
	sandbox: Sandbox;
	n8n: N8nInstance;
	installed: { name: string; version: string; folder: string };
	stop(): Promise<void>;
}

// A frozen sandbox clock by default: messages stay ENROUTE until a test moves the clock
// (sandbox.advance), so what the trigger sees on each poll is decided by the test, not by timing.
const FROZEN: Partial<SandboxOptions> = { timeScale: 0 };

export async function startHarness(sandboxOptions = FROZEN): Promise<Harness> {
	const sandbox = await startSandbox(sandboxOptions);
	const n8n = await N8nInstance.create({ keepUserFolder: process.env.BULKSMS_E2E_KEEP === '1' });
	const stop = async () => {
		await n8n.stop();
		await sandbox.stop();
	};
	try {
		const installed = n8n.installPackage(packageTarball());
		await n8n.importCredential(credential(sandboxAccount(sandbox)));
		return { sandbox, n8n, installed, stop };
	} catch (error) {
		await stop();
		throw error;
	}
}

/** The nth request to reach the sandbox from now on meets this fault, with no other fault on. */
export function faultAt(sandbox: Sandbox, n: number, fault: QueuedFault): void {
	sandbox.setFaults({});
	sandbox.queueFaultAt(n, fault);
}
