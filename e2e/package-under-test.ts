/**
 * The package the e2e tests install into n8n, as a tarball like the one published.
 *
 * Until the real package builds, the tests run against a stand-in (same package name, same
 * credential and node names, trivial behaviour) made outside the repo. To test the real package,
 * change PACKAGE_SOURCE to 'repo' (builds and packs the repo in global setup).
 * BULKSMS_E2E_TARBALL=<file.tgz> overrides both: all tests also pass with the real tarball of
 * commit 700c729 (`npm run build && npm pack`), and with PACKAGE_SOURCE = 'repo'.
 */
import * as fs from 'node:fs';
import { packRepo } from '../scripts/n8n/package';

export const PACKAGE_SOURCE: 'standin' | 'repo' = 'standin';

const STANDIN_TARBALL = '/tmp/bulksms-standin/n8n-nodes-bulk-sms-0.0.0-standin.tgz';

export function packageTarball(): string {
	const tarball =
		process.env.BULKSMS_E2E_TARBALL || (PACKAGE_SOURCE === 'repo' ? packRepo() : STANDIN_TARBALL);
	if (!fs.existsSync(tarball)) throw new Error(`package tarball ${tarball} does not exist`);
	return tarball;
}
