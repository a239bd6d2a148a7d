/* eslint-disable
	@n8n/community-nodes/no-dangerous-functions,
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * n8n's own check, `n8n-node lint` in strict mode, reads eslint.config.mjs only if it is n8n's
 * template word for word, so the package is eligible for n8n Cloud. Dev code (tests, sandbox,
 * scripts, e2e, benchmarks) never runs inside n8n: it opts out of the community-node rules that
 * concern code n8n loads, in one header per file, and keeps every other rule of the template.
 * Why, rule by rule: docs/decisions.md, "Lint".
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const TEMPLATE =
	'node_modules/@n8n/node-cli/dist/template/templates/shared/default/eslint.config.mjs';

/** The rules dev code may opt out of: they guard code that n8n loads and runs. */
const DEV_CODE_OPT_OUTS = [
	'@n8n/community-nodes/no-dangerous-functions',
	'@n8n/community-nodes/no-hardcoded-secrets',
	'@n8n/community-nodes/no-restricted-globals',
	'@n8n/community-nodes/no-restricted-imports',
	'@n8n/community-nodes/node-usable-as-tool',
	'@n8n/community-nodes/require-node-api-error',
	'no-console',
];
const REASON = '-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint")';
const HEADER = /^\/\* eslint-disable\n((?:\t[^\n]+,\n)*\t[^\n,]+)\n\t(-- [^\n]*) \*\/\n/;

function read(file: string): string {
	return readFileSync(path.join(ROOT, file), 'utf8');
}

function trackedTypeScript(): string[] {
	const listed = execFileSync('git', ['ls-files', '-z', '*.ts'], { cwd: ROOT, encoding: 'utf8' });
	return listed.split('\0').filter(Boolean);
}

/** What is wrong with a file's opt-out header, if it has one; nothing when it is right. */
function headerProblems(file: string, text: string): string[] {
	const header = HEADER.exec(text);
	if (!header) return [];
	const rules = header[1].split(',\n').map((rule) => rule.trim());
	const problems: string[] = [];
	if (/^(nodes|credentials)\//.test(file)) problems.push('package code opts out of nothing');
	if (header[2] !== REASON) problems.push(`the reason must read: ${REASON}`);
	for (const rule of rules)
		if (!DEV_CODE_OPT_OUTS.includes(rule)) problems.push(`${rule} is not a node-only rule`);
	if (rules.join() !== [...new Set(rules)].sort().join()) problems.push('rules not sorted once');
	return problems.map((problem) => `${file}: ${problem}`);
}

describe("n8n's strict lint", () => {
	it('eslint.config.mjs is the template of n8n-node, byte for byte, and nothing is read before it', () => {
		expect(read('eslint.config.mjs')).toBe(read(TEMPLATE));
		for (const shadow of ['eslint.config.js', 'eslint.config.cjs', 'eslint.config.ts', '.eslintrc'])
			expect(existsSync(path.join(ROOT, shadow))).toBe(false);
	});

	it('package.json asks for strict mode, and npm run lint is n8n-node lint', () => {
		const manifest = JSON.parse(read('package.json'));
		expect(manifest.n8n.strict).toBe(true);
		expect(manifest.scripts.lint).toBe('n8n-node lint');
	});

	it('dev code opts out only of node-only rules, in one uniform header at the top of a file', () => {
		const problems = trackedTypeScript().flatMap((file) => {
			const text = read(file);
			// Any other directive (or a header of another shape) that names a node rule.
			const stray = /eslint-(disable|enable)[^*]*@n8n\/community-nodes\//.test(
				text.replace(HEADER, ''),
			);
			const inPackage = /^(nodes|credentials)\//.test(file) && /eslint-(disable|enable)/.test(text);
			return [
				...headerProblems(file, text),
				...(stray ? [`${file}: a node rule turned off outside the header`] : []),
				...(inPackage ? [`${file}: package code turns no rule off`] : []),
			];
		});
		expect(problems).toEqual([]);
	});

	it('the reason every header gives is written down', () => {
		expect(read('docs/decisions.md')).toMatch(/^## Lint\b/m);
	});
});
