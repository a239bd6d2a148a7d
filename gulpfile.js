// Build: type-check, bundle each entry n8n loads (runtime libraries such as fast-xml-parser are
// bundled in, so the published package has no dependencies), then copy icons and codex files.
const { execFileSync } = require('node:child_process');
const { rmSync } = require('node:fs');
const { dest, parallel, series, src } = require('gulp');
const esbuild = require('esbuild');
const pkg = require('./package.json');

function clean(done) {
	rmSync('dist', { recursive: true, force: true });
	done();
}

function typecheck(done) {
	execFileSync(require.resolve('typescript/bin/tsc'), ['--noEmit', '--incremental', 'false', '-p', 'tsconfig.json'], {
		stdio: 'inherit',
	});
	done();
}

/** The entries are the files package.json tells n8n to load: dist/x.js is built from x.ts. */
function entryPoints() {
	const built = [...pkg.n8n.credentials, ...pkg.n8n.nodes];
	return built.map((file) => file.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
}

function bundle() {
	return esbuild.build({
		entryPoints: entryPoints(),
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
	});
}

function copyAssets() {
	return src(['nodes/**/*.svg', 'nodes/**/*.png', 'nodes/**/*.node.json', 'credentials/**/*.svg'], {
		base: '.',
		encoding: false,
	}).pipe(dest('dist'));
}

exports.build = series(clean, typecheck, parallel(bundle, copyAssets));
exports.default = exports.build;
