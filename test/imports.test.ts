/* eslint-disable
	@n8n/community-nodes/no-dangerous-functions,
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * No import circles: every module stands on modules below it, so a reader can start from the
 * bottom of any folder and never meet a module that needs one they have not read yet. Type-only
 * imports count too: a circle of types is a piece of vocabulary without a home. Imports are read
 * by TypeScript's own pre-processor, so an import written over several lines is found as well.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

const ROOT = path.resolve(__dirname, '..');

function trackedTypeScript(): string[] {
	const listed = execFileSync('git', ['ls-files', '-z', '*.ts'], { cwd: ROOT, encoding: 'utf8' });
	return listed.split('\0').filter((file) => file && !file.endsWith('.d.ts'));
}

/** The repository's own files a module imports (relative imports only: packages are leaves). */
function importsOf(file: string): string[] {
	const text = readFileSync(path.join(ROOT, file), 'utf8');
	const { importedFiles } = ts.preProcessFile(text, true, false);
	return importedFiles
		.map(({ fileName }) => fileName)
		.filter((name) => name.startsWith('.'))
		.map((name) => path.join(path.dirname(file), name))
		.map((base) => [`${base}.ts`, path.join(base, 'index.ts')].find(inRepository))
		.filter((found): found is string => found !== undefined);
}

function inRepository(file: string): boolean {
	return existsSync(path.join(ROOT, file));
}

/** Each circle once, as the path that walks it: a.ts → b.ts → a.ts. */
function circles(graph: Map<string, string[]>): string[] {
	const found = new Set<string>();
	const state = new Map<string, 'open' | 'done'>();
	const trail: string[] = [];
	const visit = (file: string): void => {
		state.set(file, 'open');
		trail.push(file);
		for (const next of graph.get(file) ?? []) {
			if (state.get(next) === 'open') {
				const circle = trail.slice(trail.indexOf(next));
				found.add([...circle, next].join(' → '));
			} else if (!state.has(next)) visit(next);
		}
		trail.pop();
		state.set(file, 'done');
	};
	for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
	return [...found];
}

describe('imports', () => {
	it('form no circle anywhere in the repository', () => {
		const graph = new Map(trackedTypeScript().map((file) => [file, importsOf(file)]));
		expect(circles(graph)).toEqual([]);
	});

	it('the check finds a circle of type-only imports (the one sandbox/ had)', () => {
		const graph = new Map([
			['sandbox/callbacks.ts', ['sandbox/lifecycle.ts']],
			['sandbox/lifecycle.ts', ['sandbox/store.ts']],
			['sandbox/store.ts', ['sandbox/callbacks.ts']],
		]);
		expect(circles(graph)).toEqual([
			'sandbox/callbacks.ts → sandbox/lifecycle.ts → sandbox/store.ts → sandbox/callbacks.ts',
		]);
	});
});
