/**
 * What every e2e test starts from: the sandbox (so the nodes talk to a real HTTP service), a
 * fresh n8n user folder with the package tarball installed the way n8n installs it, and the
 * sandbox credential imported. Everything is stopped by `stop()`.
 */
import { startSandbox, type Sandbox } from '../sandbox/server';
import { N8nInstance, type JsonObject } from '../scripts/n8n/runtime';
import { credential, SEND_NODE_NAME } from '../scripts/n8n/workflows';
import { packageTarball } from './package-under-test';

export interface Harness {
	sandbox: Sandbox;
	n8n: N8nInstance;
	installed: { name: string; version: string; folder: string };
	stop(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
	// A frozen sandbox clock: messages stay ENROUTE until a test moves the clock (sandbox.advance),
	// so what the trigger sees on each poll is decided by the test, not by timing.
	const sandbox = await startSandbox({ host: '127.0.0.1', port: 0, timeScale: 0 });
	const n8n = await N8nInstance.create({ keepUserFolder: process.env.BULKSMS_E2E_KEEP === '1' });
	try {
		const installed = n8n.installPackage(packageTarball());
		await n8n.importCredential(credential(sandbox.baseUrl));
		const stop = async () => {
			await n8n.stop();
			await sandbox.stop();
		};
		return { sandbox, n8n, installed, stop };
	} catch (error) {
		await n8n.stop();
		await sandbox.stop();
		throw error;
	}
}

/** The items a node output in `n8n execute`'s run data (first run, first output). */
export function outputItems(runData: JsonObject, nodeName = SEND_NODE_NAME): JsonObject[] {
	const execution = runData as {
		data: {
			resultData: {
				error?: unknown;
				runData: Record<string, Array<{ data?: { main: JsonObject[][] } }>>;
			};
		};
	};
	const runs = execution.data.resultData.runData[nodeName];
	if (!runs)
		throw new Error(
			`no run of ${nodeName}: ${JSON.stringify(execution.data.resultData.error ?? {})}`,
		);
	return (runs[0].data?.main[0] ?? []).map((item) => item.json as JsonObject);
}
