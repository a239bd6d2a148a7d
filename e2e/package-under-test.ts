/**
 * The package the e2e tests install into n8n, as a tarball like the one published.
 *
 * Until the real package builds, the tests run against a stand-in (same package name, same
 * credential and node names, trivial behaviour) made outside the repo. To test the real package,
 * change PACKAGE_SOURCE to 'repo'. BULKSMS_E2E_TARBALL=<file.tgz> overrides both.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const PACKAGE_SOURCE: 'standin' | 'repo' = 'standin';

const STANDIN_TARBALL = '/tmp/bulksms-standin/n8n-nodes-bulk-sms-0.0.0-standin.tgz';
const REPO_ROOT = path.resolve(__dirname, '..');

/** Builds and packs the repo exactly as `npm publish` would, into a temp folder. */
export function packRepo(): string {
	execFileSync('npm', ['run', 'build'], { cwd: REPO_ROOT, stdio: 'inherit' });
	const destination = fs.mkdtempSync(path.join(os.tmpdir(), 'bulksms-pack-'));
	const output = execFileSync('npm', ['pack', '--json', '--pack-destination', destination], {
		cwd: REPO_ROOT,
		encoding: 'utf8',
	});
	const [{ filename }] = JSON.parse(output) as Array<{ filename: string }>;
	return path.join(destination, filename);
}

export function packageTarball(): string {
	const tarball =
		process.env.BULKSMS_E2E_TARBALL || (PACKAGE_SOURCE === 'repo' ? packRepo() : STANDIN_TARBALL);
	if (!fs.existsSync(tarball)) throw new Error(`package tarball ${tarball} does not exist`);
	return tarball;
}
