/**
 * The package as users get it: the tarball `npm pack` makes after the build. The demo, the
 * editor and the e2e tests install this, never the sources, so they test what is published.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');

/** Builds the repo and packs it into a temp folder; returns the tarball's path. */
export function packRepo(): string {
	execFileSync('npm', ['run', 'build'], {
		cwd: REPO_ROOT,
		stdio: ['ignore', 'inherit', 'inherit'],
	});
	const destination = fs.mkdtempSync(path.join(os.tmpdir(), 'bulksms-pack-'));
	// The tarball lives as long as the process that packed it (the e2e run's, the demo's).
	process.once('exit', () => fs.rmSync(destination, { recursive: true, force: true }));
	const output = execFileSync('npm', ['pack', '--json', '--pack-destination', destination], {
		cwd: REPO_ROOT,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	const [{ filename }] = JSON.parse(output) as Array<{ filename: string }>;
	return path.join(destination, filename);
}
