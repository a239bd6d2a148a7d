/**
 * n8n's editor with the packed package installed, for a person to try the nodes by hand: the
 * sandbox, a fresh n8n on 127.0.0.1 with an owner account, the sandbox credential and the example
 * workflows already imported. Prints the address and the login; Ctrl-C stops everything.
 *
 * Usage: npx tsx scripts/n8n/editor.ts [--port 5678] [--tarball file.tgz] [--screenshot out.png]
 *   --screenshot  log in with Chromium, open the demo workflow, save a screenshot, and exit
 */
import { startSandbox } from '../../sandbox/server';
import { inspectCanvas, launchBrowser, loginThroughForm, newPage, openWorkflow } from './browser';
import { packRepo } from './package';
import { DEFAULT_OWNER, N8nInstance, type N8nServer } from './runtime';
import { credential, sendThenStatusWorkflow } from './workflows';

const WORKFLOW_ID = 'bulkSmsDemo001';

function option(argv: string[], name: string): string | undefined {
	const at = argv.indexOf(name);
	return at >= 0 ? argv[at + 1] : undefined;
}

function say(message: string): void {
	process.stdout.write(`${message}\n`);
}

/** The proof that the editor draws the package: a screenshot and what the canvas reports. */
async function screenshot(server: N8nServer, file: string): Promise<void> {
	const browser = await launchBrowser();
	try {
		const page = await newPage(browser);
		await loginThroughForm(page, server);
		await openWorkflow(page, server, WORKFLOW_ID);
		await page.screenshot({ path: file });
		say(`screenshot: ${file}\ncanvas: ${JSON.stringify(await inspectCanvas(page), null, 2)}`);
	} finally {
		await browser.close();
	}
}

function untilInterrupted(): Promise<void> {
	return new Promise((resolve) => {
		process.once('SIGINT', resolve);
		process.once('SIGTERM', resolve);
	});
}

async function main(): Promise<void> {
	const argv = process.argv.slice(2);
	const tarball = option(argv, '--tarball') ?? packRepo();
	const port = Number(option(argv, '--port') ?? 5678);
	const screenshotFile = option(argv, '--screenshot');

	const sandbox = await startSandbox({ host: '127.0.0.1', port: 0 });
	const n8n = await N8nInstance.create();
	try {
		const installed = n8n.installPackage(tarball);
		await n8n.importCredential(credential(sandbox.baseUrl));
		await n8n.importWorkflow(sendThenStatusWorkflow(WORKFLOW_ID));
		const server = await n8n.startServer({ port });
		await server.setupOwner();
		say(`n8n ${n8n.provisioned.n8nVersion} with ${installed.name}@${installed.version}`);
		say(`editor:  ${server.baseUrl}/workflow/${WORKFLOW_ID}`);
		say(`login:   ${DEFAULT_OWNER.email} / ${DEFAULT_OWNER.password}`);
		say(`sandbox: ${sandbox.baseUrl} (credential "Bulk SMS (sandbox)", account demo)`);
		if (screenshotFile) await screenshot(server, screenshotFile);
		else {
			say('Ctrl-C stops n8n and the sandbox.');
			await untilInterrupted();
		}
	} finally {
		await n8n.stop();
		await sandbox.stop();
	}
}

main().catch((error) => {
	process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
	process.exit(1);
});
