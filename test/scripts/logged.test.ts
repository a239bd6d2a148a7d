/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * scripts/n8n/logged.ts: what provisioning n8n prints (the demo's first run printed ~296
 * `npm warn` lines) goes to a log, and a person sees it only when a command fails: its last
 * lines, and where the whole log is.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { runLogged } from '../../scripts/n8n/logged';

let folder: string;
let log: string;

beforeEach(() => {
	folder = fs.mkdtempSync(path.join(os.tmpdir(), 'bulksms-logged-'));
	log = path.join(folder, 'step.log');
	fs.writeFileSync(log, '# the step\n');
});
afterEach(() => fs.rmSync(folder, { recursive: true, force: true }));

/** A Node script as a command: what npm would print, on both streams. */
function node(script: string): [string, string[]] {
	return [process.execPath, ['-e', script]];
}

const options = () => ({ cwd: folder, env: process.env, log });

it('keeps what a command prints in the log, after what the log held, and prints nothing', () => {
	const write = jest.spyOn(process.stderr, 'write');
	runLogged(
		...node('console.log("added 2000 packages"); console.error("npm warn deprecated")'),
		options(),
	);
	runLogged(...node('console.log("rebuilt")'), options());

	const text = fs.readFileSync(log, 'utf8');
	expect(text).toMatch(/^# the step\n/);
	expect(text).toMatch(/\$ .*node -e console\.log\("added 2000 packages"\)/);
	expect(text).toContain('added 2000 packages\nnpm warn deprecated\n');
	expect(text.indexOf('rebuilt')).toBeGreaterThan(text.indexOf('npm warn deprecated'));
	expect(write).not.toHaveBeenCalled();
	write.mockRestore();
});

it('fails with the last 40 lines of the output and the path of the whole log', () => {
	const noisy = node(
		'for (let i = 1; i <= 300; i++) console.error("npm warn line " + i); process.exit(3)',
	);
	let message = '';
	try {
		runLogged(...noisy, options());
	} catch (error) {
		message = (error as Error).message;
	}

	expect(message).toMatch(/^.*node -e .* failed in .* \(exit 3\)\. Its last lines:\n/);
	expect(message).toContain('npm warn line 261\n');
	expect(message).toContain('npm warn line 300\n');
	expect(message).not.toContain('npm warn line 260\n');
	expect(message.endsWith(`\nThe whole output: ${log}`)).toBe(true);
	expect(fs.readFileSync(log, 'utf8')).toContain('npm warn line 1\n');
});

it('says so when the command cannot start at all', () => {
	expect(() => runLogged('no-such-command-here', [], options())).toThrow(
		/no-such-command-here failed in .* \(spawnSync no-such-command-here ENOENT\)/,
	);
});
