/**
 * End-to-end tests: the packed package inside the real n8n product (see scripts/n8n/).
 * Separate from the unit tests because they need the provisioned n8n (npm run n8n:provision, about
 * 7 min cold: docs/running-in-n8n.md) and Chromium, and take minutes. Run: npx jest -c e2e/jest.config.js
 * @type {import('jest').Config}
 */
module.exports = {
	rootDir: '..',
	roots: ['<rootDir>/e2e'],
	testMatch: ['**/*.e2e.ts'],
	testEnvironment: 'node',
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }] },
	// Each file starts its own n8n (0.5-0.75 GB each): one at a time keeps the machine responsive.
	maxWorkers: 1,
	// Provisioning on a cold cache takes minutes; one trigger test waits up to 75 s for n8n's schedule.
	testTimeout: 240000,
	globalSetup: '<rootDir>/e2e/global-setup.ts',
};
