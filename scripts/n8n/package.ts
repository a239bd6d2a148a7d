/* eslint-disable
	@n8n/community-nodes/no-dangerous-functions,
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	@n8n/community-nodes/require-node-api-error
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * The package as users get it: the tarball `npm pack` makes after the build. The demo, the
 * editor and the e2e tests install this, never the sources, so they test what is published.
 */
import { execFileSync, type StdioOptions } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');

export interface PackOptions {
	/** keep npm's and gulp's output to show it only if a step fails (the demo's one-line steps) */
	quiet?: boolean;
}

/** Builds the repo and packs it into a temp folder; returns the tarball's path. */
export function packRepo(options: PackOptions = {}): string {
	run(['run', 'build'], options);
	const destination = fs.mkdtempSync(path.join(os.tmpdir(), 'bulksms-pack-'));
	// The tarball lives as long as the process that packed it (the e2e run's, the demo's).
	process.once('exit', () => fs.rmSync(destination, { recursive: true, force: true }));
	// --dry-run=false: under `npm publish --dry-run` (trying the prepublishOnly guard) npm passes
	// dry-run on to this pack, which would then write no tarball for the scanner.
	const packArgs = ['pack', '--json', '--dry-run=false', '--pack-destination', destination];
	const output = run(packArgs, options);
	const [{ filename }] = JSON.parse(output) as Array<{ filename: string }>;
	return path.join(destination, filename);
}

/**
 * One npm command; returns its stdout when it is not shown. Quiet: everything it prints is
 * kept, and shown only if it fails.
 */
function run(args: string[], { quiet = false }: PackOptions): string {
	const shown = !quiet && args[0] === 'run';
	const stdio: StdioOptions = ['ignore', shown ? 'inherit' : 'pipe', quiet ? 'pipe' : 'inherit'];
	try {
		return execFileSync('npm', args, { cwd: REPO_ROOT, encoding: 'utf8', stdio }) ?? '';
	} catch (error) {
		const failed = error as { stdout?: string; stderr?: string };
		if (quiet) process.stderr.write(`${failed.stdout ?? ''}${failed.stderr ?? ''}`);
		throw new Error(`npm ${args.join(' ')} failed`);
	}
}
