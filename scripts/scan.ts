/* eslint-disable
	@n8n/community-nodes/no-dangerous-functions,
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	no-console
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
// Runs n8n's community-package scanner on what users get (the unpacked `npm pack` tarball,
// bundled code included) and on the sources: the two legs n8n's own verification runs. Its
// CLI only fetches published packages, so this calls its analyzer directly.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { packRepo, REPO_ROOT } from './n8n/package';

async function main(): Promise<void> {
	const scanner = await import('@n8n/scan-community-package/scanner/scanner.mjs');
	const tarball = packRepo();
	const unpacked = path.join(path.dirname(tarball), 'package');
	execFileSync('tar', ['-xzf', tarball, '-C', path.dirname(tarball)]);
	const legs: Array<[string, string, string[]]> = [
		['tarball', unpacked, ['**/*.js', 'package.json']],
		['sources', REPO_ROOT, scanner.SOURCE_FILE_PATTERNS],
	];
	let failed = false;
	try {
		for (const [name, dir, patterns] of legs) {
			const result = await scanner.analyzePackage(dir, patterns);
			console.log(`scan ${name}: ${result.passed ? 'passed' : `FAILED (${result.message})`}`);
			if (result.details) console.log(result.details);
			failed ||= !result.passed;
		}
	} finally {
		fs.rmSync(path.dirname(tarball), { recursive: true, force: true });
	}
	process.exitCode = failed ? 1 : 0;
}

void main();
