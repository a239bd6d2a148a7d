/**
 * The suites that name a calendar date, for `npm run test:dates`, which runs them with the clock
 * ten years ahead (faketime): a test that mixes a date it fixes with code that reads the clock
 * fails there the day it is written, not on the day that date falls out of a window
 * (CONTRIBUTING.md, "Tests on any date"). A suite names a date when it, or a helper of the test
 * folders it imports, holds `Date.UTC(2026, …)`, `Date.parse('2026…')`, `new Date('2026…')` or a
 * `2026-11-20`-like date; the other suites cannot meet a date that stands still while the clock
 * moves on, and run only in `npm test`.
 * @type {import('jest').Config}
 */
const fs = require('node:fs');
const path = require('node:path');
const unitTests = require('./jest.config');

const CALENDAR_DATE =
	/Date\.UTC\(\s*(19|20)\d\d|(new Date|Date\.parse)\(\s*['"`](19|20)\d\d|\b(19|20)\d\d-[01]\d-[0-3]\d\b/;
const TEST_FOLDER = /(^|\/)test\//;
const RELATIVE_IMPORT = /\bfrom\s+['"](\.{1,2}\/[^'"]+)['"]/g;

function testFiles(folder) {
	return fs.readdirSync(folder, { withFileTypes: true, recursive: true }).flatMap((entry) => {
		const file = path.join(entry.parentPath, entry.name);
		return entry.isFile() && file.endsWith('.test.ts') ? [file] : [];
	});
}

/** The module a relative import names, when it is a TypeScript file of a test folder. */
function testHelper(from, specifier) {
	const base = path.resolve(path.dirname(from), specifier);
	const file = [`${base}.ts`, path.join(base, 'index.ts')].find((f) => fs.existsSync(f));
	return file && TEST_FOLDER.test(path.relative(__dirname, file)) ? file : undefined;
}

/** Whether a file, or a test helper it imports (at any depth), names a calendar date. */
function namesADate(file, seen = new Set()) {
	if (seen.has(file)) return false;
	seen.add(file);
	const text = fs.readFileSync(file, 'utf8');
	if (CALENDAR_DATE.test(text)) return true;
	for (const [, specifier] of text.matchAll(RELATIVE_IMPORT)) {
		const helper = testHelper(file, specifier);
		if (helper && namesADate(helper, seen)) return true;
	}
	return false;
}

const roots = unitTests.roots.map((root) => root.replace('<rootDir>', __dirname));

module.exports = {
	...unitTests,
	testMatch: roots.flatMap(testFiles).filter((file) => namesADate(file)),
};
