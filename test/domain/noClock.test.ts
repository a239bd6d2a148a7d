/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * The domain never reads the clock: its functions are given the time (`now`, an instant), so that
 * every test of them decides what time it is. npm run test:dates leaves test/domain/ out for that
 * reason (jest.dates.config.js); this is what makes it safe.
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const DOMAIN = path.resolve(__dirname, '../../nodes/shared/domain');
/** Reading the clock: Date.now(), a Date made without arguments, performance.now(). */
const READS_THE_CLOCK = /\bDate\.now\s*\(|\bnew Date\s*\(\s*\)|\bperformance\.now\s*\(/;

export function clockReaders(sources: Record<string, string>): string[] {
	return Object.entries(sources)
		.filter(([, text]) => READS_THE_CLOCK.test(text))
		.map(([file]) => file);
}

it('no module of nodes/shared/domain reads the clock', () => {
	const sources = Object.fromEntries(
		readdirSync(DOMAIN)
			.filter((file) => file.endsWith('.ts'))
			.map((file) => [file, readFileSync(path.join(DOMAIN, file), 'utf8')]),
	);
	expect(Object.keys(sources).length).toBeGreaterThan(10);
	expect(clockReaders(sources)).toEqual([]);
});

it('the check finds a module that does', () => {
	expect(
		clockReaders({
			'a.ts': 'const at = new Date(given);',
			'b.ts': 'return Date.now() - start;',
			'c.ts': 'const d = new Date();',
		}),
	).toEqual(['b.ts', 'c.ts']);
});
