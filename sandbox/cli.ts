/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	no-console
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * `npm run sandbox`: starts the sandbox in the foreground and prints what to paste into the n8n
 * credential. Every flag has an environment variable; a flag wins over its variable.
 */
import { parseCli, type CliConfig } from './flags';
import { startSandbox, type Sandbox } from './server';

export const USAGE = `Usage: npm run sandbox -- [flags]

  --host HOST               SANDBOX_HOST          interface to bind (127.0.0.1)
  --port N                  SANDBOX_PORT          port, 0 = any free port (8555)
  --account USER:PASS[:N]   SANDBOX_ACCOUNTS      account with N credits; repeat the flag, or
                                                  separate accounts with commas in the variable
                                                  (default demo:demo-password:1000)
  --credits N               SANDBOX_CREDITS       credits of each account given without N, or of
                                                  the demo account (1000)
  --time-scale X            SANDBOX_TIME_SCALE    the sandbox clock runs X times faster (1);
                                                  0 freezes it (it then moves only by
                                                  POST /_sandbox/clock)
  --final-after DURATION    SANDBOX_FINAL_AFTER   sandbox time from send to a final state (5s)
  --time-zone ZONE          SANDBOX_TIME_ZONE     zone of validity_period and delivery_date (UTC)
  --network PREFIX:ID:MAX   SANDBOX_NETWORKS      network for a country-code prefix, with its
                                                  maximum validity, e.g. 44:23410:3d (repeatable)
  --state-file PATH         SANDBOX_STATE_FILE    keep accounts, credits and batches in this file
  --first-batch-id N        SANDBOX_FIRST_BATCH_ID   first batch_id, 1 to 19 digits
                                                  (9007199254740993)
  --latency DURATION        SANDBOX_LATENCY       added to every /api response (0)
  --error-500-rate R        SANDBOX_ERROR_500_RATE   share 0..1 of /api requests answered 500
  --error-503-rate R        SANDBOX_ERROR_503_RATE   share answered 503 with Retry-After
  --error-429-rate R        SANDBOX_ERROR_429_RATE   share answered 429 with Retry-After
  --retry-after SECONDS     SANDBOX_RETRY_AFTER   Retry-After of injected 429s and 503s (1)
  --drop-before-rate R      SANDBOX_DROP_BEFORE_RATE share dropped before processing
  --drop-after-rate R       SANDBOX_DROP_AFTER_RATE  share dropped after processing (sent, no answer)
  --rate-limit N/DURATION   SANDBOX_RATE_LIMIT    at most N /api requests per authenticated
                                                  account per window
  --fault-seed N            SANDBOX_FAULT_SEED    seed of the fault draws (1)
  --mislabel                SANDBOX_MISLABEL=true    label JSON and XML answers text/plain
  --answer-format json|xml  SANDBOX_ANSWER_FORMAT    answer in this format whatever Accept asks
  --callback-url [USER=]URL SANDBOX_CALLBACK_URL  POST status callbacks of USER's batches (of
                                                  every account without USER=) to URL;
                                                  user:pass@ in URL is sent as HTTP Basic
  --callback-format json|xml   SANDBOX_CALLBACK_FORMAT   wire form of the callbacks (json)
  --callback-batch N        SANDBOX_CALLBACK_BATCH   at most N reports per callback (1)
  --callback-attempts N     SANDBOX_CALLBACK_ATTEMPTS   tries per callback before giving up (5)
  --callback-retry DURATION SANDBOX_CALLBACK_RETRY  first retry after this, then doubling (250ms)
  --callback-timeout DURATION  SANDBOX_CALLBACK_TIMEOUT   a receiver's time to answer (5s)
  --callback-duplicate-rate R  SANDBOX_CALLBACK_DUPLICATE_RATE   share of callbacks sent twice
  --callback-reorder-rate R    SANDBOX_CALLBACK_REORDER_RATE     share overtaken by the next one
  --callback-delay-rate R      SANDBOX_CALLBACK_DELAY_RATE       share delayed by --callback-delay
  --callback-delay DURATION    SANDBOX_CALLBACK_DELAY            delay of a delayed callback (1s)
  --callback-duplicate-after DURATION   SANDBOX_CALLBACK_DUPLICATE_AFTER   gap before a
                                                  duplicate's second copy (0)
  --callback-spacing DURATION  SANDBOX_CALLBACK_SPACING   pause between callbacks to one URL (0)
  --callback-in-flight N    SANDBOX_CALLBACK_IN_FLIGHT   callbacks to one URL under way at once (1)
  --callback-burst-rate R      SANDBOX_CALLBACK_BURST_RATE       share whose first try goes out
                                                  as several copies at once
  --callback-burst-copies N    SANDBOX_CALLBACK_BURST_COPIES     how many copies (5)
  --no-admin                SANDBOX_ADMIN=false   do not serve /_sandbox/*
  --quiet                   SANDBOX_QUIET=true    do not print one line per request
  --help

Durations: 250ms, 5s, 2m, 1h, 3d (a bare number is milliseconds).`;

export function banner(sandbox: Sandbox): string {
	const { options } = sandbox;
	const lines = [
		`Bulk SMS sandbox listening on ${sandbox.baseUrl}`,
		'',
		'n8n credential (Bulk SMS API):',
	];
	lines.push(`  Base URL  ${sandbox.baseUrl}`);
	// What the sandbox holds, so a password or balance from the state file is what is shown.
	for (const a of sandbox.credentials()) {
		lines.push(`  Username  ${a.username}   Password  ${a.password}   (${a.credits} credits)`);
	}
	for (const a of sandbox.accounts()) {
		if (a.callback_url)
			lines.push(`  Callbacks of ${a.username}: ${a.callback_format} to ${a.callback_url}`);
	}
	lines.push(
		'',
		`Clock x${options.timeScale}, messages final after ${options.finalAfterMs} ms of sandbox time, zone ${options.timeZone}.`,
	);
	if (options.stateFile) lines.push(`State file: ${options.stateFile}`);
	if (options.admin) lines.push(`Admin view: ${sandbox.baseUrl}/_sandbox/batches`);
	lines.push('Press Ctrl-C to stop.');
	return lines.join('\n');
}

async function main(): Promise<void> {
	let config: CliConfig;
	try {
		config = parseCli(process.argv.slice(2), process.env);
	} catch (error) {
		console.error(`${(error as Error).message}\n\n${USAGE}`);
		process.exit(2);
	}
	if (config.help) return void console.log(USAGE);
	if (!config.quiet)
		config.options.log = (line) => console.log(`${new Date().toISOString()} ${line}`);
	const sandbox = await startSandbox(config.options);
	console.log(banner(sandbox));
	let stopping = false;
	const stop = (signal: string) => {
		if (stopping) return;
		stopping = true;
		console.log(`\n${signal}: stopping the sandbox`);
		sandbox.stop().then(
			() => {
				console.log('Sandbox stopped.');
				process.exit(0);
			},
			(error) => {
				console.error(error);
				process.exit(1);
			},
		);
	};
	process.on('SIGINT', () => stop('SIGINT'));
	process.on('SIGTERM', () => stop('SIGTERM'));
}

if (require.main === module) {
	main().catch((error) => {
		const inUse = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
		const hint = inUse ? ' (another sandbox? pick another --port, or 0 for a free one)' : '';
		console.error(`sandbox: ${(error as Error).message}${hint}`);
		process.exit(1);
	});
}
