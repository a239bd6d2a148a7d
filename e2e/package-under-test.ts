/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * The package the e2e tests install into n8n: the repo built and packed like the published
 * tarball, or BULKSMS_E2E_TARBALL=<file.tgz> to test a tarball made elsewhere.
 */
import * as fs from 'node:fs';
import { packRepo } from '../scripts/n8n/package';

export function packageTarball(): string {
	const tarball = process.env.BULKSMS_E2E_TARBALL || packRepo();
	if (!fs.existsSync(tarball)) throw new Error(`package tarball ${tarball} does not exist`);
	return tarball;
}
