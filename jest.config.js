/** @type {import('jest').Config} */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test', '<rootDir>/sandbox'],
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }] },
	testTimeout: 30000,
	// n8n's logger silent unless N8N_LOG_LEVEL asks for it (test/engine/quietLog.ts).
	setupFiles: ['<rootDir>/test/engine/quietLog.ts'],
};
