/* eslint-disable
	@n8n/community-nodes/no-dangerous-functions,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * Commands whose output a person needs only when they fail: installing n8n prints hundreds of
 * `npm warn` lines that say nothing to someone running the demo. The output goes to a log file,
 * kept; when the command fails, the error carries its last lines and says where the whole log is.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';

/** Lines of a failed command's output that its error carries; the rest stays in the log. */
const TAIL_LINES = 40;

export interface LoggedOptions {
	cwd: string;
	env: NodeJS.ProcessEnv;
	/** The file that receives everything the command writes, after what it holds already. */
	log: string;
}

export function runLogged(command: string, args: string[], options: LoggedOptions): void {
	const { cwd, env, log } = options;
	const shown = [command, ...args].join(' ');
	fs.appendFileSync(log, `\n$ ${shown}\n# in ${cwd}\n`);
	const output = fs.openSync(log, 'a');
	let result;
	try {
		result = spawnSync(command, args, { cwd, env, stdio: ['ignore', output, output] });
	} finally {
		fs.closeSync(output);
	}
	if (result.status === 0) return;
	const exit = result.error?.message ?? `exit ${result.status ?? result.signal}`;
	throw new Error(
		`${shown} failed in ${cwd} (${exit}). Its last lines:\n${tail(log)}\nThe whole output: ${log}`,
	);
}

function tail(file: string): string {
	const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
	return lines.slice(-TAIL_LINES).join('\n');
}
