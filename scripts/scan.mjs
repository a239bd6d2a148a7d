// Runs n8n's community-package scanner on what users get (the unpacked `npm pack` tarball,
// bundled code included) and on the sources, the two legs n8n's own verification runs.
// Its CLI only fetches published packages, so this calls its analyzer directly.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzePackage, SOURCE_FILE_PATTERNS } from '@n8n/scan-community-package/scanner/scanner.mjs';

const root = new URL('..', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'bulk-sms-scan-'));
try {
	const packed = execFileSync('npm', ['pack', '--silent', '--pack-destination', work], { cwd: root, encoding: 'utf8' });
	const tarball = join(work, packed.trim().split('\n').pop());
	const unpacked = join(work, 'package');
	execFileSync('tar', ['-xzf', tarball, '-C', work]);
	const legs = [
		['tarball', unpacked, ['**/*.js', 'package.json']],
		['sources', root, SOURCE_FILE_PATTERNS],
	];
	let failed = false;
	for (const [name, dir, patterns] of legs) {
		const result = await analyzePackage(dir, patterns);
		console.log(`scan ${name}: ${result.passed ? 'passed' : `FAILED (${result.message})`}`);
		if (result.details) console.log(result.details);
		failed ||= !result.passed;
	}
	process.exitCode = failed ? 1 : 0;
} finally {
	rmSync(work, { recursive: true, force: true });
}
