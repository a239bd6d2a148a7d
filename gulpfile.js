// Build: type-check, bundle each entry n8n loads (runtime libraries such as fast-xml-parser are
// bundled in, so the published package has no dependencies), then copy icons and codex files.
const { execFileSync } = require('node:child_process');
const { rmSync } = require('node:fs');
const { dest, parallel, series, src } = require('gulp');
// The bundling step lives in scripts/bundle.ts (its metafile also lists what is bundled).
require('tsx/cjs/api').register();
const { buildBundle } = require('./scripts/bundle.ts');

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

function bundle() {
	return buildBundle();
}

function copyAssets() {
	return src(['nodes/**/*.svg', 'nodes/**/*.png', 'nodes/**/*.node.json', 'credentials/**/*.svg'], {
		base: '.',
		encoding: false,
	}).pipe(dest('dist'));
}

exports.build = series(clean, typecheck, parallel(bundle, copyAssets));
exports.default = exports.build;
