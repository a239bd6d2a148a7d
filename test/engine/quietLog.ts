/* eslint-disable
	@n8n/community-nodes/no-restricted-globals
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * Run before each test file (jest.config.js, setupFiles): n8n's logger stays silent in tests
 * unless N8N_LOG_LEVEL, n8n's own setting, asks for its lines. It writes through winston to
 * console.log, and jest prints every console call with a stack, so a run of the suite buried what
 * failed under the nodes' log. Tests that look at the log spy on it (engineLogger in logger.ts),
 * which works at any level: `N8N_LOG_LEVEL=info npx jest test/bulkSms` shows it again.
 */
process.env.N8N_LOG_LEVEL ??= 'silent';
