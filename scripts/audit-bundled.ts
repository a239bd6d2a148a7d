/* eslint-disable
	@n8n/community-nodes/no-dangerous-functions,
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	no-console
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * `npm run audit:bundled [-- <npm audit options>]`: checks the libraries bundled into dist/ for
 * known advisories. `npm audit` only sees dependencies, and the published package has none: its
 * libraries are bundled (scripts/bundle.ts). So their exact versions, read from the bundle, go
 * into a throwaway package-lock.json that `npm audit --package-lock-only` reads.
 *
 * Exit 1 when an advisory applies; 0 when none does, and 0 also when the advisory database
 * could not be asked (offline, or a registry without it), saying loudly that nothing was
 * checked: CI must not depend on reaching it.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { bundledPackages, bundledTable, type BundledPackage } from './bundle';

/** What npm audit --json says, as far as it is read here. */
interface AuditReport {
	vulnerabilities?: Record<
		string,
		{ severity: string; via: Array<string | { title?: string; url?: string }> }
	>;
	message?: string;
	error?: { summary?: string };
}

export type Verdict =
	| { kind: 'clean' }
	| { kind: 'advisories'; lines: string[] }
	| { kind: 'unchecked'; why: string };

/** Reads npm audit's JSON output; anything else means the database was not asked. */
export function verdictOf(stdout: string): Verdict {
	let report: AuditReport;
	try {
		report = JSON.parse(stdout) as AuditReport;
	} catch {
		return { kind: 'unchecked', why: 'npm audit gave no report' };
	}
	if (report.vulnerabilities === undefined) {
		return { kind: 'unchecked', why: report.message ?? report.error?.summary ?? 'no report' };
	}
	const lines = Object.entries(report.vulnerabilities).map(([name, { severity, via }]) => {
		const advisories = via
			.map((cause) =>
				typeof cause === 'string' ? `through ${cause}` : `${cause.title} ${cause.url}`,
			)
			.join('; ');
		return `${name} (${severity}): ${advisories}`;
	});
	return lines.length === 0 ? { kind: 'clean' } : { kind: 'advisories', lines };
}

/** A folder with a package.json and a lock naming exactly the bundled versions. */
function lockFolder(packages: readonly BundledPackage[]): string {
	const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'bulksms-bundled-'));
	const dependencies = Object.fromEntries(packages.map(({ name, version }) => [name, version]));
	const root = { name: 'bundled-in-n8n-nodes-bulk-sms', version: '0.0.0', dependencies };
	const lock = {
		...root,
		lockfileVersion: 3,
		requires: true,
		packages: {
			'': root,
			...Object.fromEntries(
				packages.map(({ name, version }) => [`node_modules/${name}`, { version }]),
			),
		},
	};
	fs.writeFileSync(path.join(folder, 'package.json'), JSON.stringify(root, null, 2));
	fs.writeFileSync(path.join(folder, 'package-lock.json'), JSON.stringify(lock, null, 2));
	return folder;
}

async function main(): Promise<void> {
	const packages = await bundledPackages();
	console.log(`Bundled into dist/:\n${bundledTable(packages)}\n`);
	const folder = lockFolder(packages);
	try {
		const audit = spawnSync(
			'npm',
			['audit', '--package-lock-only', '--json', ...process.argv.slice(2)],
			{ cwd: folder, encoding: 'utf8' },
		);
		const verdict = verdictOf(audit.stdout ?? '');
		if (verdict.kind === 'clean') console.log('No known advisory applies to these versions.');
		if (verdict.kind === 'advisories')
			console.log(`Advisories apply to bundled code:\n${verdict.lines.join('\n')}`);
		if (verdict.kind === 'unchecked')
			console.log(
				`NOT CHECKED: the advisory database could not be asked (${verdict.why}). Check the versions above by hand, e.g. at https://github.com/advisories.`,
			);
		process.exitCode = verdict.kind === 'advisories' ? 1 : 0;
	} finally {
		fs.rmSync(folder, { recursive: true, force: true });
	}
}

if (require.main === module) void main();
