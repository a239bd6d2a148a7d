/* eslint-disable
	@n8n/community-nodes/no-restricted-globals
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * n8n's editor with the packed package installed, for a person to try the nodes by hand: the
 * sandbox (or the service in BULKSMS_BASE_URL, see service.ts), a fresh n8n on 127.0.0.1 with an
 * owner account, the credential and the example workflows imported, the package listed on
 * the Community Nodes page (communityPackage.ts), and the status callbacks wired (callbacks.ts):
 * the Bulk SMS Status Trigger's workflow active and the sandbox calling it back, so that a Send
 * in the editor starts callback executions. Prints the addresses, the login, and the command
 * that points the sandbox at a Status Trigger of the user's own (sandbox/callbackUrl.ts);
 * Ctrl-C stops everything.
 *
 * Usage: npm run editor [-- --port 5678] [-- --sandbox-port 8555] [-- --tarball file.tgz]
 *   --sandbox-port  where the sandbox listens (a free port if another process holds it; 0: any)
 */
import { connectStatusCallbacks, importStatusCallbacks, type StatusCallbacks } from './callbacks';
import { registerCommunityPackage } from './communityPackage';
import { packRepo } from './package';
import { N8nInstance } from './instance';
import { DEFAULT_OWNER, type N8nServer } from './server';
import { startService, type Service } from './service';
import { credential, CREDENTIAL_NAME, loadExample, workflowId } from './workflows';
import { SANDBOX_PORT, type Sandbox } from '../../sandbox/server';

const EXAMPLES = [
	loadExample('send-and-track'),
	loadExample('watch-deliveries'),
	loadExample('sheet-campaign'),
];

function option(argv: string[], name: string): string | undefined {
	const at = argv.indexOf(name);
	return at >= 0 ? argv[at + 1] : undefined;
}

function say(message = ''): void {
	process.stdout.write(`${message}\n`);
}

function untilInterrupted(): Promise<void> {
	return new Promise((resolve) => {
		process.once('SIGINT', resolve);
		process.once('SIGTERM', resolve);
	});
}

function printCallbacks(
	server: N8nServer,
	callbacks: StatusCallbacks,
	url: string,
	service: Service,
): void {
	say(
		`callbacks:  ${server.baseUrl}/workflow/${workflowId(callbacks.workflow)}  (active; its executions list the reports)`,
	);
	if (!service.sandbox) return say(`            give your provider this callback URL: ${url}`);
	say(`            the sandbox calls back ${url}`);
	say(
		'your own:   to have the sandbox call back a Bulk SMS Status Trigger of yours instead, publish',
	);
	say("            its workflow and run this with its Production URL and its credential's secret:");
	say(`            ${ownTriggerCommand(server, service.sandbox)}`);
}

/** The exact command, the trigger's own parts left to fill in; it names the sandbox unless it is on 8555. */
function ownTriggerCommand(server: N8nServer, sandbox: Sandbox): string {
	const where = sandbox.port === SANDBOX_PORT ? '' : ` --sandbox ${sandbox.baseUrl}`;
	const url = `${server.baseUrl}/webhook/<webhook id>/status?token=<secret>`;
	return `npm run sandbox:callback-url --${where} '${url}'`;
}

function printWelcome(server: N8nServer, service: Service): void {
	say(`\nn8n editor: ${server.baseUrl}`);
	say(`login:      ${DEFAULT_OWNER.email} / ${DEFAULT_OWNER.password}`);
	for (const workflow of EXAMPLES) {
		say(
			`workflow:   ${server.baseUrl}/workflow/${workflowId(workflow)}  (${String(workflow.name)})`,
		);
	}
	say(`credential: "${CREDENTIAL_NAME}" (already created) -> ${service.description}`);
	say(`packages:   ${server.baseUrl}/settings/community-nodes`);
}

async function main(): Promise<void> {
	const argv = process.argv.slice(2);
	const tarball = option(argv, '--tarball') ?? packRepo();
	const port = Number(option(argv, '--port') ?? 5678);
	const sandboxPort = Number(option(argv, '--sandbox-port') ?? SANDBOX_PORT);
	const service = await startService(process.env, sandboxPort);
	const n8n = await N8nInstance.create();
	try {
		const installed = n8n.installPackage(tarball);
		say(`n8n ${n8n.provisioned.n8nVersion} with ${installed.name}@${installed.version}`);
		await n8n.importCredential(credential(service.account));
		await n8n.importWorkflow(EXAMPLES);
		const callbacks = await importStatusCallbacks(n8n);
		await registerCommunityPackage(n8n, installed);
		const server = await n8n.startServerAsOwner({ port }, 'bulk-sms-editor');
		const url = await connectStatusCallbacks(server, callbacks, service.sandbox);
		printWelcome(server, service);
		printCallbacks(server, callbacks, url, service);
		say(
			'\nOpen "send and track", press "Execute workflow"; Ctrl-C here stops n8n and the sandbox.',
		);
		await untilInterrupted();
		say('stopping...');
	} finally {
		await n8n.stop();
		await service.stop();
	}
}

main().catch((error: unknown) => {
	process.stderr.write(
		`editor failed: ${error instanceof Error ? error.message : String(error)}\n`,
	);
	process.exit(1);
});
