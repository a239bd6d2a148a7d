/**
 * The suites `npm run test:dates` runs with the clock ten and a half years ahead (faketime), in
 * another year and the other season: a test that mixes a date or a season it assumes with code
 * that reads the clock fails there the day it is written, not on the day that date falls out of a
 * window or summer time begins (CONTRIBUTING.md, "Tests on any date").
 *
 * A suite is taken when it names a calendar date or a time zone itself (`Date.UTC(2026, …)`,
 * `Date.parse('2026…')`, `new Date('2026…')`, a `2026-11-20`-like date, a zone such as
 * `'Europe/Berlin'`), except:
 * - the domain's suites (`test/domain/`): its modules never read the clock, they are given the
 *   time (test/domain/noClock.test.ts holds that), so a moved clock cannot change them;
 * - suites whose clock is jest's fake clock (`stopTheClock`, `setSystemTime`): their time is the
 *   test's already.
 * The test helpers start the sandbox at a fixed instant of their own (`startTime`).
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
const OWN_CLOCK = /\bstopTheClock\(|\bsetSystemTime\(/;
const NEVER_READS_THE_CLOCK = /(^|\/)test\/domain\//;

function testFiles(folder) {
	return fs.readdirSync(folder, { withFileTypes: true, recursive: true }).flatMap((entry) => {
		const file = path.join(entry.parentPath, entry.name);
		return entry.isFile() && file.endsWith('.test.ts') ? [file] : [];
	});
}

function takenAtAnyDate(file) {
	if (NEVER_READS_THE_CLOCK.test(path.relative(__dirname, file))) return false;
	const text = fs.readFileSync(file, 'utf8');
	return NAMES_A_DATE_OR_ZONE.some((pattern) => pattern.test(text)) && !OWN_CLOCK.test(text);
}

const roots = unitTests.roots.map((root) => root.replace('<rootDir>', __dirname));

module.exports = {
	...unitTests,
	testMatch: roots.flatMap(testFiles).filter(takenAtAnyDate),
	// Both cores (jest takes one less by default): CI runs this after npm test, and pays its time.
	maxWorkers: 2,
};
