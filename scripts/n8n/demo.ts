/* eslint-disable
	@n8n/community-nodes/no-restricted-globals
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * The demo: the packed package inside the real n8n, headless. Starts the sandbox (or uses the
 * service in BULKSMS_BASE_URL), provisions a fresh n8n, installs the tarball as n8n's UI would,
 * imports the credential and examples/send-and-track.json, runs it with `n8n execute`, and
 * prints one line per step, then the example's last node as a table (every number given to Send
 * once: sent with its status, skipped and why, or dropped by the service) and the credits used
 * against Send's estimate. npm's and gulp's output is shown only if the build fails. Everything
 * it started is stopped (on Ctrl-C too).
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
import { N8nInstance } from './instance';
import { type JsonObject, nodeRuns } from './runData';
import { startService, type Service } from './service';
import {
	credential,
	CREDENTIAL_NAME,
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

/** One row per number given to Send, as the example's last node makes them for the Table view. */
interface Row {
	number: string;
	result: 'sent' | 'skipped' | 'dropped';
	status: string;
	outcome: string;
	delivery_date: string | null;
	reason: string;
}

interface Outcome {
	sends: JsonObject[];
	rows: Row[];
	checks: number;
}

/** What the workflow found: Send's items, the example's rows, how many status checks it took. */
function readOutcome(run: JsonObject): Outcome {
	return {
		sends: nodeRuns(run, SEND_NODE_NAME)[0],
		rows: nodeRuns(run, DONE_NODE_NAME)[0] as unknown as Row[],
		checks: nodeRuns(run, STATUS_NODE_NAME).length,
	};
}

const COLUMNS: Array<[string, number, (row: Row) => string]> = [
	['Number', 15, (row) => row.number],
	['Result', 8, (row) => row.result],
	['Status', 8, (row) => row.status || '-'],
	['Outcome', 10, (row) => row.outcome || '-'],
	['Final at, or why not sent', 0, (row) => row.delivery_date ?? (row.reason || '-')],
];

function tableLine(cells: string[]): string {
	return cells
		.map((cell, index) => cell.padEnd(COLUMNS[index][1]))
		.join('  ')
		.trimEnd();
}

function printTable(rows: Row[]): void {
	say(tableLine(COLUMNS.map(([title]) => title)));
	say(tableLine(COLUMNS.map(([title, width]) => '-'.repeat(Math.max(width, title.length)))));
	for (const row of rows) say(tableLine(COLUMNS.map(([, , cell]) => cell(row))));
}

/** Credits the send took (known when we hold the account from before) against Send's estimate. */
function creditsLine(sends: JsonObject[], creditsBefore: number | undefined): string {
	const sum = (field: string) => sends.reduce((total, send) => total + Number(send[field] ?? 0), 0);
	const expected = sum('credits_expected');
	const left = Number(sends[sends.length - 1].remaining_credits);
	const dropped = sum('dropped_by_service');
	const because = dropped ? ` (${numbers(dropped)} dropped by the service cost nothing)` : '';
	if (creditsBefore === undefined) {
		return `Credits: ${expected} expected, ${left} left (the service does not say what one send used)`;
	}
	return `Credits: ${creditsBefore - left} used of ${expected} expected${because}, ${left} left`;
}

function numbers(count: number): string {
	return `${count} number${count === 1 ? '' : 's'}`;
}

function printSummary(outcome: Outcome, creditsBefore: number | undefined): void {
	say('');
	printTable(outcome.rows);
	say('');
	say(creditsLine(outcome.sends, creditsBefore));
}

/** Runs one step, then says in one line what it did and how long it took. */
async function step<T>(
	total: number,
	index: number,
	work: () => T | Promise<T>,
	line: (result: T) => string,
): Promise<T> {
	const started = Date.now();
	const result = await work();
	say(`[${index}/${total}] ${line(result)} (${seconds(started)})`);
	return result;
}

const STEPS = 6;

async function runDemo(args: Args, service: Service, n8n: N8nInstance): Promise<Outcome> {
	const tarball = await step(
		STEPS,
		3,
		() => args.tarball ?? packRepo({ quiet: true }),
		(file) => (args.tarball ? `package: ${file}` : 'package built and packed'),
	);
	await step(
		STEPS,
		4,
		() => n8n.installPackage(tarball),
		(installed) =>
			`n8n ${n8n.provisioned.n8nVersion}: ${installed.name}@${installed.version} installed as n8n installs community packages`,
	);
	const workflow = demoWorkflow(process.env);
	await step(
		STEPS,
		5,
		async () => {
			await n8n.importCredential(credential(service.account));
			await n8n.importWorkflow(workflow);
		},
		() =>
			`imported the credential "${CREDENTIAL_NAME}" and the workflow "${String(workflow.name)}"`,
	);
	const run = await step(
		STEPS,
		6,
		() => n8n.executeWorkflow(workflowId(workflow)),
		(result) =>
			`n8n execute: ${String(result.status)}, ${nodeRuns(result, STATUS_NODE_NAME).length} status check(s)`,
	);
	return readOutcome(run);
}

/** The sandbox finishes every example number in seconds: a sent number not final there is a fault. */
function allFinal(rows: Row[]): boolean {
	return rows.every((row) => row.result !== 'sent' || row.outcome !== 'pending');
}

async function main(): Promise<number> {
	const started = Date.now();
	const args = parseArgs(process.argv.slice(2));
	checkDestinations(process.env);
	const service = await step(
		STEPS,
		1,
		() => startService(),
		(started) => `service: ${started.description}`,
	);
	// The first run installs n8n into the cache (minutes): provision.ts says each step as it starts.
	const n8n = await step(
		STEPS,
		2,
		() => N8nInstance.create({ keepUserFolder: args.keep }),
		({ provisioned }) =>
			`n8n ${provisioned.n8nVersion} on Node ${provisioned.nodeVersion}, from ${provisioned.cacheDir}`,
	);
	try {
		const creditsBefore = service.sandbox?.accounts()[0]?.credits;
		const outcome = await runDemo(args, service, n8n);
		printSummary(outcome, creditsBefore);
		if (args.keep) say(`n8n user folder kept: ${n8n.userFolder}`);
		say(`Demo done in ${seconds(started)}`);
		return allFinal(outcome.rows) || !service.sandbox ? 0 : 1;
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
