/* eslint-disable
	@n8n/community-nodes/no-dangerous-functions,
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * What the bundle holds (scripts/bundle.ts, from esbuild's metafile) is what the README lists,
 * and `npm run audit:bundled` checks those versions through npm audit itself. The advisory
 * database is stood in for by a server on 127.0.0.1 (npm's `--registry`), as the sandbox stands
 * in for the service: npm asks it exactly what it would ask the registry.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';

import { bundledPackages, bundledTable } from '../../scripts/bundle';

const ROOT = path.resolve(__dirname, '..', '..');
const README_MARK = '<!-- bundled';

describe("the README's list of bundled packages", () => {
	it('is what the bundle holds, with the same versions', async () => {
		const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n');
		const from = readme.findIndex((line) => line.startsWith(README_MARK)) + 1;
		const to = readme.indexOf('', from);
		const listed = readme.slice(from, to).join('\n');
		const packages = await bundledPackages();
		expect(packages.map((p) => p.name)).toContain('fast-xml-parser');
		expect(listed).toBe(bundledTable(packages));
	});
});

describe('npm run audit:bundled', () => {
	/** The advisory endpoint's answer to npm, for the current test. */
	let answer: { status: number; body: object };
	let asked: string[];
	let server: Server;
	let registry: string;

	beforeAll(async () => {
		server = createServer((req, res) => {
			req.resume();
			asked.push(`${req.method} ${req.url}`);
			const bulk = req.url?.startsWith('/-/npm/v1/security/advisories/bulk');
			res.writeHead(bulk ? answer.status : 404, { 'Content-Type': 'application/json' });
			res.end(bulk ? JSON.stringify(answer.body) : '{}');
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
	});
	afterAll(async () => {
		server.closeAllConnections();
		await new Promise<void>((resolve) => server.close(() => resolve()));
	});

	/** Runs the script as `npm run audit:bundled -- --registry <stand-in>` would. */
	async function audit(): Promise<{ code: number; stdout: string }> {
		asked = [];
		return await new Promise((resolve) => {
			const script = path.join(ROOT, 'scripts', 'audit-bundled.ts');
			const tsx = path.join(ROOT, 'node_modules', '.bin', 'tsx');
			execFile(tsx, [script, '--registry', registry], { cwd: ROOT }, (error, stdout) =>
				resolve({ code: error ? Number(error.code) : 0, stdout }),
			);
		});
	}

	const ADVISORY = {
		id: 1,
		url: 'https://github.com/advisories/GHSA-test-test-test',
		title: 'A test advisory',
		severity: 'high',
		vulnerable_versions: '<=99.0.0',
		cwe: [],
		cvss: { score: 7.5, vectorString: null },
	};

	it('fails, naming the advisory, when one applies to a bundled version', async () => {
		answer = { status: 200, body: { strnum: [ADVISORY] } };
		const { code, stdout } = await audit();
		expect(asked[0]).toMatch(/^POST \/-\/npm\/v1\/security\/advisories\/bulk/);
		expect(stdout).toContain('| strnum |');
		expect(stdout).toContain(
			'strnum (high): A test advisory https://github.com/advisories/GHSA-test-test-test',
		);
		expect(code).toBe(1);
	});

	it('passes when none applies', async () => {
		answer = { status: 200, body: {} };
		const { code, stdout } = await audit();
		expect(stdout).toContain('No known advisory applies to these versions.');
		expect(code).toBe(0);
	});

	it('passes, saying nothing was checked, when the database cannot be asked', async () => {
		answer = { status: 405, body: {} };
		const { code, stdout } = await audit();
		expect(stdout).toMatch(/NOT CHECKED: the advisory database could not be asked \(405/);
		expect(code).toBe(0);
	});
});
