/**
 * The demo: the packed package inside the real n8n, headless. Starts the sandbox (or uses the
 * service in BULKSMS_BASE_URL), provisions a fresh n8n, installs the tarball as n8n's UI would,
 * imports the credential and examples/send-and-track.json, runs it with `n8n execute`, prints a
 * summary of the batch, and stops everything it started (on Ctrl-C too).
 *
 * Usage: npm run demo [-- --tarball file.tgz] [-- --keep]
 *   --tarball  install this tarball instead of building and packing the repo
 *   --keep     keep n8n's user folder (its path is printed) to look at the database or logs
 * Environment: BULKSMS_BASE_URL, BULKSMS_USERNAME, BULKSMS_PASSWORD, BULKSMS_TIME_ZONE: a real
 * service instead of the sandbox; BULKSMS_DESTINATIONS: numbers to send to instead of the
 * example's test numbers (required with a real service: the example's numbers are fictional, and
 * sending to them would spend real credits).
 */
import { packRepo } from './package';
import { N8nInstance, nodeRuns, type JsonObject } from './runtime';
import { startService, type Service } from './service';
import {
	credential,
	DONE_NODE_NAME,
	loadExample,
	SEND_NODE_NAME,
	STATUS_NODE_NAME,
	withParameters,
	workflowId,
} from './workflows';

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

function say(message = ''): void {
	process.stdout.write(`${message}\n`);
}

function seconds(since: number): string {
	return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

/** The example as the demo runs it: with the user's numbers when BULKSMS_DESTINATIONS says so. */
function demoWorkflow(env: NodeJS.ProcessEnv): JsonObject {
	const example = loadExample('send-and-track');
	const destinations = env.BULKSMS_DESTINATIONS;
	return destinations ? withParameters(example, SEND_NODE_NAME, { destinations }) : example;
}

/** Real credits must not go to the example's fictional numbers: checked before anything starts. */
function checkDestinations(env: NodeJS.ProcessEnv): void {
	if (env.BULKSMS_BASE_URL && !env.BULKSMS_DESTINATIONS) {
		throw new Error(
			'BULKSMS_BASE_URL is set: set BULKSMS_DESTINATIONS to the numbers to send to (the example numbers are fictional and would cost real credits), or unset it to use the sandbox',
		);
	}
}

interface Outcome {
	sent: JsonObject;
	batch: JsonObject;
	checks: number;
}

/** What the workflow found: Send's item, the last status of the batch, how many checks it took. */
function readOutcome(run: JsonObject): Outcome {
	const [sent] = nodeRuns(run, SEND_NODE_NAME)[0];
	const [batch] = nodeRuns(run, DONE_NODE_NAME)[0];
	return { sent, batch, checks: nodeRuns(run, STATUS_NODE_NAME).length };
}

function printSummary({ sent, batch, checks }: Outcome): void {
	const reports = batch.reports as JsonObject[];
	const finals = reports.filter((report) => report.final).length;
	const accepted = `${String(sent.batch_size)} of ${String(sent.requested)} numbers accepted`;
	say(`\nBatch ${String(sent.batch_id)}: ${accepted}`);
	say(`${finals} of ${reports.length} final after ${checks} status check(s):`);
	for (const report of reports) say(`  ${reportLine(report)}`);
	for (const skipped of sent.skipped as JsonObject[]) {
		say(`Skipped by the node: "${String(skipped.input)}": ${String(skipped.reason)}`);
	}
	const dropped = Number(sent.dropped_by_service);
	say(`Dropped by the service: ${dropped}${dropped ? ' (the service does not say which)' : ''}`);
	say(`Credits left: ${String(sent.remaining_credits)}`);
}

function reportLine(report: JsonObject): string {
	const columns = [report.msisdn, report.status, report.outcome].map(String);
	const when = String(report.delivery_date ?? 'not final yet');
	return `${columns[0].padEnd(15)} ${columns[1].padEnd(8)} ${columns[2].padEnd(9)} ${when}`;
}

async function runDemo(args: Args, service: Service, n8n: N8nInstance): Promise<Outcome> {
	const installed = n8n.installPackage(args.tarball ?? packRepo());
	say(`n8n ${n8n.provisioned.n8nVersion} with ${installed.name}@${installed.version}`);
	say(`service: ${service.description}`);
	const workflow = demoWorkflow(process.env);
	await n8n.importCredential(credential(service.account));
	await n8n.importWorkflow(workflow);
	const started = Date.now();
	const run = await n8n.executeWorkflow(workflowId(workflow));
	say(`n8n execute "${String(workflow.name)}": ${String(run.status)} in ${seconds(started)}`);
	return readOutcome(run);
}

async function main(): Promise<number> {
	const started = Date.now();
	const args = parseArgs(process.argv.slice(2));
	checkDestinations(process.env);
	const service = await startService();
	const n8n = await N8nInstance.create({ keepUserFolder: args.keep });
	try {
		const outcome = await runDemo(args, service, n8n);
		printSummary(outcome);
		if (args.keep) say(`n8n user folder kept: ${n8n.userFolder}`);
		say(`Demo done in ${seconds(started)}`);
		// The sandbox finishes every example number in seconds: not final there means a fault.
		return outcome.batch.all_final || !service.sandbox ? 0 : 1;
	} finally {
		await n8n.stop();
		await service.stop();
	}
}

main().then(
	(code) => process.exit(code),
	(error: unknown) => {
		process.stderr.write(
			`demo failed: ${error instanceof Error ? error.message : String(error)}\n`,
		);
		process.exit(1);
	},
);
