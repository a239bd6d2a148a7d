/**
 * Once per run, before any test: provision n8n (seconds when cached) and pack the package, so
 * no test's timeout pays for either, and every test installs the very same tarball.
 */
import { provision } from '../scripts/n8n/provision';
import { packageTarball } from './package-under-test';

export default async function globalSetup(): Promise<void> {
	await provision();
	// Workers start after global setup and inherit its environment.
	process.env.BULKSMS_E2E_TARBALL = packageTarball();
}
