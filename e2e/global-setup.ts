/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * Once per run, before any test: provision n8n (seconds when cached) and pack the package, so
 * no test's timeout pays for either, and every test installs the very same tarball. It also
 * makes sure an interrupted run (Ctrl-C, a CI timeout) leaves no n8n running: this code runs in
 * the test runner's own process, whose exit and signals the test files cannot hook.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { provision } from '../scripts/n8n/provision';
import { killRecordedGroups } from '../scripts/n8n/processes';
import { packageTarball } from './package-under-test';

export default async function globalSetup(): Promise<void> {
	await provision();
	// Workers start after global setup and inherit its environment.
	process.env.BULKSMS_E2E_TARBALL = packageTarball();
	const groups = fs.mkdtempSync(path.join(os.tmpdir(), 'bulksms-n8n-groups-'));
	process.env.BULKSMS_N8N_GROUPS_DIR = groups;
	process.on('exit', () => {
		killRecordedGroups(groups);
		fs.rmSync(groups, { recursive: true, force: true });
	});
	for (const signal of ['SIGINT', 'SIGTERM'] as const) {
		process.on(signal, () => process.exit(128 + os.constants.signals[signal]));
	}
}
