/* eslint-disable
	@n8n/community-nodes/no-dangerous-functions,
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	@n8n/community-nodes/require-node-api-error
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * Makes n8n list the installed tarball as a community package, as if it had been installed from
 * Settings → Community Nodes. n8n loads any package it finds in `~/.n8n/nodes/node_modules`, but its
 * Community Nodes page, and the package version in a node's footer, come from two tables it
 * writes when it installs a package itself (installed_packages, installed_nodes; n8n 2.41.1's
 * `installed-packages.repository`). Installing through that page needs the npm registry to serve
 * the package, which an unpublished build is not; so this writes the same rows, with n8n stopped,
 * through Node 24's built-in SQLite, before `n8n start`.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { N8nInstance } from './instance';

/** The rows n8n would have written; the script below runs in Node 24 (node:sqlite). */
const REGISTER = `
const { DatabaseSync } = require('node:sqlite');
const path = require('node:path');
const [database, folder] = process.argv.slice(1);
const pkg = require(path.join(folder, 'package.json'));
const db = new DatabaseSync(database);
db.prepare('DELETE FROM installed_nodes WHERE package = ?').run(pkg.name);
db.prepare('DELETE FROM installed_packages WHERE packageName = ?').run(pkg.name);
const now = "STRFTIME('%Y-%m-%d %H:%M:%f', 'NOW')";
db.prepare('INSERT INTO installed_packages (packageName, installedVersion, authorName, authorEmail, createdAt, updatedAt) VALUES (?, ?, ?, ?, ' + now + ', ' + now + ')')
	.run(pkg.name, pkg.version, pkg.author?.name ?? null, pkg.author?.email ?? null);
for (const file of pkg.n8n.nodes) {
	const className = path.basename(file, '.node.js');
	const { description } = new (require(path.join(folder, file))[className])();
	const version = Math.max(...[description.version].flat());
	db.prepare('INSERT INTO installed_nodes (name, type, latestVersion, package) VALUES (?, ?, ?, ?)')
		.run(description.displayName, pkg.name + '.' + description.name, version, pkg.name);
}
db.close();
`;

/** Call before `n8n start`. */
export async function registerCommunityPackage(
	n8n: N8nInstance,
	installed: { folder: string },
): Promise<void> {
	const database = path.join(n8n.userFolder, '.n8n', 'database.sqlite');
	// n8n creates its database, tables included, on its first command: with nothing imported yet,
	// a command that only reads it.
	if (!fs.existsSync(database)) await n8n.cliOk(['list:workflow']);
	// The node files import n8n-workflow, which n8n provides to the packages it loads.
	const n8nModules = path.resolve(n8n.provisioned.n8nBin, '..', '..', '..');
	try {
		execFileSync(
			n8n.provisioned.nodeBin,
			['--no-warnings', '-e', REGISTER, database, installed.folder],
			{ stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NODE_PATH: n8nModules } },
		);
	} catch (error) {
		const stderr = String((error as { stderr?: Buffer }).stderr ?? '');
		throw new Error(`could not register the package with n8n: ${stderr.trim()}`);
	}
}
