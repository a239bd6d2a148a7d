/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	@n8n/community-nodes/require-node-api-error
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * `npm run walkthrough`: a video of the package in the real n8n editor, for n8n's verification
 * reviewers, made by one command. The package is packed and installed into a fresh `n8n start`
 * as the Community Nodes page installs it (instance.ts, communityPackage.ts); Debian's Chromium
 * then does what a new user does (walkthroughScenes.ts): the credential against the sandbox and
 * its test, Send SMS, Get Delivery Status, and both triggers firing, the Status Trigger on the
 * sandbox's callbacks. Chromium's own frames (screencast.ts) become an MP4 that Debian's ffmpeg
 * encodes; Chromium and ffmpeg are installed first when missing and we are root (debian.ts).
 * Everything it starts, it stops.
 *
 * Usage: npm run walkthrough [-- --tarball file.tgz] [-- --out file.mp4] [-- --pace 1]
 *   --tarball  install this tarball instead of building and packing the repository
 *   --out      where the video goes (walkthrough/<package>-<version>-n8n-<n8n version>.mp4 by
 *              default, a folder git ignores)
 *   --pace     pauses last this many times as long (below 1 while working on the scenes)
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';

import type { Sandbox } from '../../sandbox/server';
import { CHROMIUM, launchBrowser, loginThroughForm } from './browser';
import { registerCommunityPackage } from './communityPackage';
import { requireDebianPrograms } from './debian';
import { N8nInstance } from './instance';
import { packRepo, REPO_ROOT } from './package';
import { Screencast, type Video } from './screencast';
import { startService } from './service';
import { Stage } from './stage';
import { SCENES, type Walk } from './walkthroughScenes';

const USAGE =
	'Usage: npm run walkthrough [-- --tarball file.tgz] [-- --out file.mp4] [-- --pace 1]';
const VIEWPORT = { width: 1440, height: 900 };
const OUT_FOLDER = path.join(REPO_ROOT, 'walkthrough');

interface Args {
	tarball?: string;
	out?: string;
	pace: number;
}

function parseArgs(argv: string[]): Args {
	const value = (name: string) => {
		const at = argv.indexOf(name);
		return at >= 0 ? argv[at + 1] : undefined;
	};
	const pace = Number(value('--pace') ?? 1);
	if (!(pace > 0)) throw new Error(`--pace must be a number above 0\n${USAGE}`);
	return { tarball: value('--tarball'), out: value('--out'), pace };
}

function say(message: string): void {
	process.stdout.write(`${message}\n`);
}

/**
 * Plays the scenes in Chromium, signed in beforehand, and keeps its frames in `frames`. A scene
 * that fails leaves a screenshot of the screen then in the output folder.
 */
async function record(
	walk: Omit<Walk, 'stage' | 'page'>,
	browser: Browser,
	pace: number,
	frames: string,
): Promise<Screencast> {
	const stage = await Stage.open(browser, VIEWPORT, pace);
	const { page } = stage;
	await loginThroughForm(page, walk.server);
	await page.goto(`${walk.server.baseUrl}/settings/community-nodes`);
	await page.getByText('n8n-nodes-bulk-sms', { exact: true }).waitFor();
	const cast = await Screencast.start(page, frames);
	const started = Date.now();
	const whole: Walk = { ...walk, stage, page }; // one for all: a scene leaves what it made
	for (const [name, scene] of SCENES) {
		say(`${String(Math.round((Date.now() - started) / 1000)).padStart(4)} s  ${name}`);
		try {
			await scene(whole);
		} catch (error) {
			const shot = path.join(OUT_FOLDER, `failed-${name.replace(/\W+/g, '-')}.png`);
			await page.screenshot({ path: shot }).catch(() => undefined);
			const why = error instanceof Error ? error.message : String(error);
			throw new Error(`scene "${name}" failed (the screen then: ${shot}): ${why}`);
		}
	}
	await cast.stop();
	return cast;
}

async function main(args: Args): Promise<Video> {
	fs.mkdirSync(OUT_FOLDER, { recursive: true });
	requireDebianPrograms(
		[
			{ command: CHROMIUM, package: 'chromium' },
			{ command: 'ffmpeg', package: 'ffmpeg' },
		],
		path.join(OUT_FOLDER, 'apt-get.log'),
	);
	const tarball = args.tarball ?? packRepo({ quiet: true });
	// Always the sandbox (no BULKSMS_BASE_URL): the video shows what anyone can run again.
	const service = await startService({}, 0);
	const n8n = await N8nInstance.create();
	const frames = fs.mkdtempSync(path.join(os.tmpdir(), 'bulksms-frames-'));
	let browser: Browser | undefined;
	try {
		const installed = n8n.installPackage(tarball);
		await registerCommunityPackage(n8n, installed);
		const n8nVersion = n8n.provisioned.n8nVersion;
		const product = `${installed.name} ${installed.version} in n8n ${n8nVersion}`;
		const server = await n8n.startServerAsOwner({}, 'bulk-sms-walkthrough');
		browser = await launchBrowser();
		say(`${product}: recording`);
		const walk = { server, sandbox: service.sandbox as Sandbox, product };
		const cast = await record(walk, browser, args.pace, frames);
		const name = `${installed.name}-${installed.version}-n8n-${n8nVersion}.mp4`;
		say('encoding');
		return cast.encode(path.resolve(args.out ?? path.join(OUT_FOLDER, name)));
	} finally {
		await browser?.close();
		await n8n.stop();
		await service.stop();
		fs.rmSync(frames, { recursive: true, force: true });
	}
}

if (process.argv.includes('--help')) {
	say(USAGE);
} else {
	main(parseArgs(process.argv.slice(2))).then(
		(video) => {
			const seconds = Math.round(video.seconds);
			const length = `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
			const size = `${(video.bytes / 1e6).toFixed(1)} MB`;
			say(`${video.file}: ${size}, ${length} (H.264, ${VIEWPORT.width}×${VIEWPORT.height})`);
			process.exit(0);
		},
		(error: unknown) => {
			const why = error instanceof Error ? error.message : String(error);
			process.stderr.write(`walkthrough failed: ${why}\n`);
			process.exit(1);
		},
	);
}
