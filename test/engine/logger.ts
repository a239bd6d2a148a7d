/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * The logger n8n-core gives a node as `this.logger`: n8n-core resolves n8n's dependency container
 * from its own copy of @n8n/di (under n8n-core/node_modules), so a test that imported @n8n/di
 * itself would look at another container and another logger.
 */
import { createRequire } from 'node:module';

interface EngineLogger {
	info(message: string): void;
	warn(message: string): void;
}

export function engineLogger(): EngineLogger {
	const fromCore = createRequire(require.resolve('n8n-core'));
	const { Container } = fromCore('@n8n/di') as { Container: { get(type: unknown): unknown } };
	const { Logger } = fromCore('@n8n/backend-common') as { Logger: unknown };
	return Container.get(Logger) as EngineLogger;
}
