/**
 * The demo: the packed package inside the real n8n, sending through the sandbox, headless.
 * Starts the sandbox and a fresh n8n, installs the tarball as n8n's UI would, imports a
 * credential and the workflow Manual Trigger → Send → Get Status, runs it with `n8n execute`,
 * prints what each node output, and stops everything.
 *
 * Usage: npx tsx scripts/n8n/demo.ts [--tarball file.tgz] [--keep]
 *   --tarball  install this tarball instead of building and packing the repo
 *   --keep     keep n8n's user folder (its path is printed) to look at the database or logs
 */
import { startSandbox } from '../../sandbox/server';
import { packRepo } from './package';
import { N8nInstance, type JsonObject } from './runtime';
import { credential, SEND_NODE_NAME, sendThenStatusWorkflow, STATUS_NODE_NAME } from './workflows';

const WORKFLOW_ID = 'bulkSmsDemo001';

interface Args {
	tarball?: string;
	keep: boolean;
}

function parseArgs(argv: string[]): Args {
	const tarballAt = argv.indexOf('--tarball');
	return {
		tarball: tarballAt >= 0 ? argv[tarballAt + 1] : undefined,
		keep: argv.includes('--keep'),
	};
}

function say(message: string): void {
	process.stdout.write(`${message}\n`);
}

/** The items one node output, from `n8n execute`'s run data. */
function nodeOutput(run: JsonObject, nodeName: string): JsonObject[] {
	const data = run.data as {
		resultData: { runData: Record<string, Array<{ data?: { main: JsonObject[][] } }>> };
	};
	const runs = data.resultData.runData[nodeName] ?? [];
	return (runs[0]?.data?.main[0] ?? []).map((item) => item.json as JsonObject);
}

async function main(): Promise<void> {
	const args = parseArgs(process.argv.slice(2));
	const tarball = args.tarball ?? packRepo();
	const sandbox = await startSandbox({ host: '127.0.0.1', port: 0 });
	const n8n = await N8nInstance.create({ keepUserFolder: args.keep });
	try {
		const installed = n8n.installPackage(tarball);
		say(`n8n ${n8n.provisioned.n8nVersion} with ${installed.name}@${installed.version}`);
		say(`sandbox at ${sandbox.baseUrl} (account demo)`);
		await n8n.importCredential(credential(sandbox.baseUrl));
		await n8n.importWorkflow(sendThenStatusWorkflow(WORKFLOW_ID));
		const started = Date.now();
		const run = await n8n.executeWorkflow(WORKFLOW_ID);
		say(`n8n execute: ${run.status} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
		for (const node of [SEND_NODE_NAME, STATUS_NODE_NAME]) {
			say(`\n${node}:\n${JSON.stringify(nodeOutput(run, node), null, 2)}`);
		}
		if (args.keep) say(`\nuser folder kept: ${n8n.userFolder}`);
	} finally {
		await n8n.stop();
		await sandbox.stop();
	}
}

main().catch((error) => {
	process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
	process.exit(1);
});
