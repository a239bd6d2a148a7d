/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * The bundle n8n loads: one file per entry of package.json's `n8n` section, with every runtime
 * library (fast-xml-parser and its own dependencies) bundled in, so the published package has
 * no dependencies. The build writes it (gulpfile.js); what it holds is read from esbuild's
 * metafile, for the README's list (test/package/bundled.test.ts keeps the two equal) and for
 * `npm run audit:bundled`, which `npm audit` cannot do on its own: bundled code is no
 * dependency it can see.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as esbuild from 'esbuild';

const ROOT = path.resolve(__dirname, '..');

interface PackageJson {
	name: string;
	version: string;
	license?: string;
	n8n: { credentials: string[]; nodes: string[] };
}

const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as PackageJson;

/** dist/x.js is built from x.ts, for each file package.json tells n8n to load. */
function entryPoints(): string[] {
	const { n8n } = readJson(path.join(ROOT, 'package.json'));
	return [...n8n.credentials, ...n8n.nodes].map((file) =>
		file.replace(/^dist\//, '').replace(/\.js$/, '.ts'),
	);
}

const OPTIONS: esbuild.BuildOptions = {
	absWorkingDir: ROOT,
	outdir: 'dist',
	outbase: '.',
	bundle: true,
	platform: 'node',
	target: 'node20',
	format: 'cjs',
	// n8n provides n8n-workflow; everything else goes into the bundle.
	external: ['n8n-workflow'],
	legalComments: 'inline',
	logLevel: 'warning',
	metafile: true,
};

/** Builds dist/ (the build's bundling step). */
export async function buildBundle(): Promise<void> {
	await esbuild.build({ ...OPTIONS, entryPoints: entryPoints() });
}

export interface BundledPackage {
	name: string;
	version: string;
	license: string;
}

/** The packages whose code is in the bundle, by name, from a build in memory. */
export async function bundledPackages(): Promise<BundledPackage[]> {
	const { metafile } = await esbuild.build({
		...OPTIONS,
		entryPoints: entryPoints(),
		write: false,
	});
	const folders = new Set<string>();
	for (const output of Object.values(metafile?.outputs ?? {})) {
		for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
			const folder = packageFolder(input);
			if (folder !== undefined && bytesInOutput > 0) folders.add(folder);
		}
	}
	return [...folders]
		.map((folder) => {
			const { name, version, license } = readJson(path.join(ROOT, folder, 'package.json'));
			return { name, version, license: license ?? 'unknown' };
		})
		.sort((a, b) => a.name.localeCompare(b.name));
}

/** `node_modules/@scope/name/src/x.js` → `node_modules/@scope/name` (the innermost package). */
function packageFolder(input: string): string | undefined {
	const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
	return match?.[1];
}

/** The README's table of what is bundled. */
export function bundledTable(packages: readonly BundledPackage[]): string {
	return [
		'| package | version | license |',
		'|---|---|---|',
		...packages.map(({ name, version, license }) => `| ${name} | ${version} | ${license} |`),
	].join('\n');
}
