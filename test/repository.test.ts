/* eslint-disable
	@n8n/community-nodes/no-dangerous-functions,
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * The repository explains itself: a maintainer who clones it has every file its code and docs
 * cite. Nothing it tracks may name a path of the machine it was built on, or a document kept
 * outside it (the provider's interface is restated in docs/interface.md, and cited there).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..');

/** What a clone cannot follow, and what to write instead. */
const OUTSIDE: Array<{ pattern: RegExp; instead: string }> = [
	{
		// An absolute path into a home folder (root's, a user's) or the build machine's work folder.
		pattern: /(^|[^\w.~-])\/(work|root|home\/[\w.-]+|Users\/[\w.-]+)\//,
		instead: 'a path relative to the repository',
	},
	{
		// The design notes kept beside the repository while it was built, by path or by name.
		pattern: /(\.\.\/)+shared\/(DESIGN|STYLE|seed)|\b(DESIGN|STYLE)\.md\b/,
		instead: 'docs/decisions.md',
	},
	{
		// The provider's document cited by its old name: the word, then a section number, "section",
		// "§", or a slash and a file name.
		pattern: /(^|[^\w-])seed(\/|[ ,]+(§|section\b|\d))/i,
		instead: 'docs/interface.md and its section number',
	},
];

function trackedTextFiles(): string[] {
	const listed = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' });
	return listed
		.split('\0')
		.filter((file) => file && !/\.(png|jpg|svg|ico)$|package-lock\.json$/.test(file));
}

/**
 * This clone, the folder around it and the user's home, wherever CI or a maintainer cloned it;
 * not the system's temp folder (a clone in /tmp must not make every '/tmp/…' of a test a finding).
 */
function machinePaths(): string[] {
	const shared = new Set(['/', os.tmpdir()]);
	return [ROOT, path.dirname(ROOT), os.homedir()]
		.filter((dir) => !shared.has(dir))
		.map((dir) => dir + '/');
}

describe('the repository cites only itself', () => {
	it('names no path of the machine and no document outside the repository', () => {
		const found: string[] = [];
		const here = path.relative(ROOT, __filename);
		for (const file of trackedTextFiles()) {
			if (file === here) continue;
			readFileSync(path.join(ROOT, file), 'utf8')
				.split('\n')
				.forEach((line, i) => {
					const where = `${file}:${i + 1}`;
					for (const { pattern, instead } of OUTSIDE) {
						if (pattern.test(line)) found.push(`${where}: cite ${instead}: ${line.trim()}`);
					}
					for (const dir of machinePaths()) {
						if (line.includes(dir)) found.push(`${where}: names ${dir}: ${line.trim()}`);
					}
				});
		}
		expect(found).toEqual([]);
	});
});

/** GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to dashes. */
function anchorOf(heading: string): string {
	return heading
		.trim()
		.toLowerCase()
		.replace(/[^\w\- ]/g, '')
		.replace(/ /g, '-');
}

describe("the repository's documents lead somewhere", () => {
	it('every relative link of a Markdown file names a tracked file, and its anchor a heading there', () => {
		const files = trackedTextFiles();
		// Every file of the clone, pictures too (and new ones not yet committed).
		const listed = execFileSync(
			'git',
			['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
			{
				cwd: ROOT,
				encoding: 'utf8',
			},
		);
		const tracked = new Set(listed.split('\0').filter(Boolean));
		const anchors = new Map<string, Set<string>>();
		const anchorsOf = (file: string) => {
			let known = anchors.get(file);
			if (!known) {
				const headings = readFileSync(path.join(ROOT, file), 'utf8').matchAll(/^#+ (.+)$/gm);
				known = new Set([...headings].map(([, heading]) => anchorOf(heading)));
				anchors.set(file, known);
			}
			return known;
		};
		const broken: string[] = [];
		for (const file of files.filter((name) => name.endsWith('.md'))) {
			const text = readFileSync(path.join(ROOT, file), 'utf8');
			for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
				if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
				const [where, anchor] = target.split('#');
				const linked =
					where === ''
						? file
						: path.posix.normalize(path.posix.join(path.posix.dirname(file), where));
				const folder = [...tracked].some((name) =>
					name.startsWith(`${linked.replace(/\/$/, '')}/`),
				);
				if (!tracked.has(linked) && !folder) broken.push(`${file}: ${target} (no such file)`);
				else if (anchor && linked.endsWith('.md') && !anchorsOf(linked).has(anchor))
					broken.push(`${file}: ${target} (no such heading)`);
			}
		}
		expect(broken).toEqual([]);
	});
});

/**
 * The section titles a file cites after `docs/decisions.md,`: quoted ("Lint") or starred
 * (*Ids*), one or several (*Service Time Zone* and *Dates*). A comment's line breaks and its
 * leading `*` or `//` are read as one space, so a title wrapped across lines is read whole.
 */
function decisionsCited(text: string): string[] {
	const joined = text.replace(/[ \t]*\r?\n[ \t]*(?:\*(?!\*)|\/\/)?[ \t]*/g, ' ');
	const titles: string[] = [];
	const citation = /\bdecisions\.md,\s*((?:(?:"[^"]+"|\*[^*]+\*)(?:\s*(?:,|;|and)\s*)?)+)/g;
	for (const [, cited] of joined.matchAll(citation)) {
		for (const [, quoted, starred] of cited.matchAll(/"([^"]+)"|\*([^*]+)\*/g))
			titles.push((quoted ?? starred).trim());
	}
	return titles;
}

describe('the sections of docs/decisions.md that others cite', () => {
	it('reads a title quoted, starred, several, or wrapped across comment lines', () => {
		expect(
			decisionsCited(
				[
					'/**',
					' * the poll fails (docs/decisions.md, "An account\'s',
					' * failure"): at once; see docs/decisions.md, *Service Time Zone* and *Dates*.',
					' */',
					'// (docs/decisions.md, "Lint")',
				].join('\n'),
			),
		).toEqual(["An account's failure", 'Service Time Zone', 'Dates', 'Lint']);
	});

	it('every section title cited after "docs/decisions.md," is a heading there', () => {
		const headings = new Set(
			[...readFileSync(path.join(ROOT, 'docs/decisions.md'), 'utf8').matchAll(/^#+ (.+)$/gm)].map(
				([, heading]) => heading.trim(),
			),
		);
		const cited: string[] = [];
		const missing: string[] = [];
		const here = path.relative(ROOT, __filename);
		for (const file of trackedTextFiles().filter((name) => name !== here)) {
			for (const title of decisionsCited(readFileSync(path.join(ROOT, file), 'utf8'))) {
				cited.push(title);
				if (!headings.has(title)) missing.push(`${file}: "${title}"`);
			}
		}
		expect(cited).toContain('Lint'); // the dev files' headers: the reader finds citations
		expect(missing).toEqual([]);
	});
});
