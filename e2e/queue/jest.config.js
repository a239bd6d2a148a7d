/**
 * The queue-mode test: the packed package in n8n's queue mode (Postgres, Redis, main, two workers),
 * as a user scales out. Apart from the e2e suite because it starts five servers (~2.5 GB) and takes
 * minutes. Run: npm run test:queue (docs/queue-mode.md).
 * @type {import('jest').Config}
 */
module.exports = {
	rootDir: '../..',
	roots: ['<rootDir>/e2e/queue'],
	testMatch: ['**/*.queue.ts'],
	testEnvironment: 'node',
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }] },
	maxWorkers: 1,
	// One file, its steps in order on one stack; a Wait of 66 s and n8n's minute schedule are in it.
	testTimeout: 180000,
	// Provisions n8n, packs the package, and kills every process group left when the run ends.
	globalSetup: '<rootDir>/e2e/global-setup.ts',
};
