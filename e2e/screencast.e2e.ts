/* eslint-disable
	@n8n/community-nodes/no-dangerous-functions,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * The walkthrough's recorder (scripts/n8n/screencast.ts) and what it films over n8n
 * (scripts/n8n/stage.ts), on a page of our own: Chromium's frames become an H.264 MP4 as long as
 * the recording was, in which the page visibly changes, the caption and the pointer drawn in it.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';

import { launchBrowser } from '../scripts/n8n/browser';
import { Screencast, type Video } from '../scripts/n8n/screencast';
import { Stage } from '../scripts/n8n/stage';

/** A counter that moves every 100 ms, so that Chromium paints all along. */
const PAGE = `<!doctype html><body style="font: 40px sans-serif"><button id="b">Press</button>
<p id="n">0</p><script>setInterval(() => { n.textContent = Number(n.textContent) + 1 }, 100)</script>`;

let server: Server;
let browser: Browser;
let folder: string;
let video: Video;
let recordedFor: number;

function ffmpeg(command: string, args: string[]): string {
	const result = spawnSync(command, args, { encoding: 'utf8' });
	if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr}`);
	return result.stdout;
}

/** The frame shown at `second`, as a hash of its pixels. */
function frameAt(second: number): string {
	const file = path.join(folder, `at-${second}.png`);
	ffmpeg('ffmpeg', [
		'-loglevel',
		'error',
		'-y',
		'-ss',
		String(second),
		'-i',
		video.file,
		'-frames:v',
		'1',
		file,
	]);
	return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

beforeAll(async () => {
	server = createServer((_req, res) => res.end(PAGE));
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	folder = fs.mkdtempSync(path.join(os.tmpdir(), 'bulksms-screencast-'));
	const frames = path.join(folder, 'frames');
	fs.mkdirSync(frames);
	browser = await launchBrowser();
	const stage = await Stage.open(browser, { width: 640, height: 360 });
	await stage.page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
	const cast = await Screencast.start(stage.page, frames);
	const started = Date.now();
	await stage.caption({ title: 'Step', text: 'what happens now' });
	await stage.click(stage.page.locator('#b'));
	await stage.pause(3);
	await cast.stop();
	recordedFor = (Date.now() - started) / 1000;
	video = cast.encode(path.join(folder, 'video.mp4'));
}, 120_000);

afterAll(async () => {
	await browser?.close();
	await new Promise((resolve) => server?.close(resolve));
	if (folder) fs.rmSync(folder, { recursive: true, force: true });
});

test('is an H.264 MP4 of the viewport, as long as the recording', () => {
	const stream = ffmpeg('ffprobe', [
		...['-v', 'error', '-select_streams', 'v:0'],
		...['-show_entries', 'stream=codec_name,width,height,pix_fmt', '-of', 'csv=p=0'],
		video.file,
	]);
	expect(stream.trim()).toBe('h264,640,360,yuv420p');
	expect(video.bytes).toBe(fs.statSync(video.file).size);
	expect(video.seconds).toBeGreaterThan(recordedFor - 0.5);
	expect(video.seconds).toBeLessThan(recordedFor + 0.5);
});

test('shows the page changing, not one frame held', () => {
	expect(frameAt(0.5)).not.toBe(frameAt(recordedFor - 0.5));
});

test('the caption and the pointer are in the page, never in the way of a click', async () => {
	const page = (await browser.contexts()[0].pages())[0];
	const overlay = await page.evaluate(() =>
		['bs-caption', 'bs-pointer'].map((id) => {
			const element = document.getElementById(id) as HTMLElement;
			return [element.textContent, element.hidden, getComputedStyle(element).pointerEvents];
		}),
	);
	expect(overlay).toEqual([
		['Stepwhat happens now', false, 'none'],
		['', false, 'none'],
	]);
});
