/**
 * The suites that name a calendar date or a time zone, for `npm run test:dates`, which runs them
 * with the clock ten and a half years ahead (faketime), in another year and the other season: a
 * test that mixes a date or a season it assumes with code that reads the clock fails there the day
 * it is written, not on the day that date falls out of a window or summer time begins
 * (CONTRIBUTING.md, "Tests on any date"). A suite is taken when it, or a helper of the test folders
 * it imports, holds `Date.UTC(2026, …)`, `Date.parse('2026…')`, `new Date('2026…')`, a
 * `2026-11-20`-like date or a zone such as `'Europe/Berlin'`; the others run only in `npm test`.
 * @type {import('jest').Config}
 */
const fs = require('node:fs');
const path = require('node:path');
const unitTests = require('./jest.config');

const NAMES_A_DATE_OR_ZONE = [
	/Date\.UTC\(\s*(19|20)\d\d/,
	/(new Date|Date\.parse)\(\s*['"`](19|20)\d\d/,
	/(?<!\d)(19|20)\d\d-[01]\d-[0-3]\d(?!\d)/,
	/['"`](Africa|America|Antarctica|Asia|Atlantic|Australia|Europe|Indian|Pacific)\/\w/,
];
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

/** Whether a file, or a test helper it imports (at any depth), names a date or a time zone. */
function namesADateOrZone(file, seen = new Set()) {
	if (seen.has(file)) return false;
	seen.add(file);
	const text = fs.readFileSync(file, 'utf8');
	if (NAMES_A_DATE_OR_ZONE.some((pattern) => pattern.test(text))) return true;
	for (const [, specifier] of text.matchAll(RELATIVE_IMPORT)) {
		const helper = testHelper(file, specifier);
		if (helper && namesADateOrZone(helper, seen)) return true;
	}
	return false;
}

const roots = unitTests.roots.map((root) => root.replace('<rootDir>', __dirname));

module.exports = {
	...unitTests,
	testMatch: roots.flatMap(testFiles).filter((file) => namesADateOrZone(file)),
	// Both cores (jest takes one less by default): CI runs this after npm test, and pays its time.
	maxWorkers: 2,
};
