/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * Programs taken from Debian, never downloaded: Chromium (playwright-core drives it) and ffmpeg
 * (the walkthrough's encoder). A missing one is installed with apt-get when we run as root, as
 * .ci/run installs Chromium on CI's machine; otherwise the error gives the command to run.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runLogged } from './logged';

export interface DebianProgram {
	/** a command on PATH, or an absolute path */
	command: string;
	/** the Debian package that provides it */
	package: string;
}

export function requireDebianPrograms(programs: DebianProgram[], log: string): void {
	const missing = programs.filter(({ command }) => !found(command));
	if (missing.length === 0) return;
	const packages = missing.map((program) => program.package);
	const install = `apt-get install ${packages.join(' ')}`;
	if (process.getuid?.() !== 0) {
		throw new Error(`${packages.join(' and ')} missing: run sudo ${install}, then this again`);
	}
	process.stderr.write(`${install} (Debian's; its output: ${log})\n`);
	fs.writeFileSync(log, '');
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	runLogged('apt-get', ['update', '-qq'], { cwd: path.dirname(log), env, log });
	runLogged('apt-get', ['install', '-y', '-qq', ...packages], { cwd: path.dirname(log), env, log });
	const still = missing.filter(({ command }) => !found(command));
	if (still.length) throw new Error(`${still.map((p) => p.command).join(', ')} still missing`);
}

function found(command: string): boolean {
	if (command.includes('/')) return executable(command);
	const folders = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
	return folders.some((folder) => executable(path.join(folder, command)));
}

function executable(file: string): boolean {
	try {
		fs.accessSync(file, fs.constants.X_OK);
		return fs.statSync(file).isFile();
	} catch {
		return false;
	}
}
