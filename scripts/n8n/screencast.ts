/* eslint-disable
	@n8n/community-nodes/no-dangerous-functions,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * A video of a Chromium page, from the frames Chromium itself paints: the DevTools protocol's
 * screencast (`Page.startScreencast`) hands over a JPEG each time the page changes, which is kept
 * with the moment it came; Debian's ffmpeg then shows each frame until the next one came, so the
 * video runs at the pace the page did, and encodes it as H.264 in an MP4 that any player opens.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CDPSession, Page } from 'playwright-core';

interface Frame {
	file: string;
	/** seconds since the epoch, when the frame came */
	at: number;
}

interface ScreencastFrame {
	data: string;
	sessionId: number;
}

export interface Video {
	file: string;
	bytes: number;
	seconds: number;
}

export class Screencast {
	private readonly frames: Frame[] = [];
	private stoppedAt?: number;

	private constructor(
		private readonly session: CDPSession,
		private readonly folder: string,
	) {}

	/** Starts keeping the page's frames in `folder`, which must exist and be empty. */
	static async start(page: Page, folder: string): Promise<Screencast> {
		const session = await page.context().newCDPSession(page);
		const cast = new Screencast(session, folder);
		session.on('Page.screencastFrame', (frame: ScreencastFrame) => cast.keep(frame));
		const { width, height } = page.viewportSize() ?? { width: 1280, height: 800 };
		await session.send('Page.startScreencast', {
			format: 'jpeg',
			quality: 90,
			maxWidth: width,
			maxHeight: height,
		});
		return cast;
	}

	private keep({ data, sessionId }: ScreencastFrame): void {
		if (this.stoppedAt !== undefined) return;
		const file = `frame-${String(this.frames.length).padStart(6, '0')}.jpg`;
		fs.writeFileSync(path.join(this.folder, file), Buffer.from(data, 'base64'));
		this.frames.push({ file, at: Date.now() / 1000 });
		// Chromium sends the next frame only once this one is acknowledged.
		this.session.send('Page.screencastFrameAck', { sessionId }).catch(() => undefined);
	}

	async stop(): Promise<void> {
		this.stoppedAt = Date.now() / 1000;
		await this.session.send('Page.stopScreencast').catch(() => undefined);
	}

	/** Encodes the frames kept until stop() into `file` (H.264, 25 frames a second). */
	encode(file: string): Video {
		if (this.stoppedAt === undefined) throw new Error('stop the screencast before encoding it');
		if (this.frames.length === 0) throw new Error('Chromium painted no frame to encode');
		const list = path.join(this.folder, 'frames.ffconcat');
		fs.writeFileSync(list, concatList(this.frames, this.stoppedAt));
		fs.mkdirSync(path.dirname(file), { recursive: true });
		ffmpeg('ffmpeg', [
			...['-hide_banner', '-loglevel', 'error', '-y'],
			...['-f', 'concat', '-safe', '0', '-i', list],
			// Each frame shown until the next came; a frame size with odd sides would stop libx264.
			...['-vf', 'fps=25,scale=trunc(iw/2)*2:trunc(ih/2)*2,format=yuv420p'],
			...['-c:v', 'libx264', '-preset', 'medium', '-crf', '24', '-movflags', '+faststart'],
			file,
		]);
		return { file, bytes: fs.statSync(file).size, seconds: videoSeconds(file) };
	}
}

/** ffmpeg's concat list: every frame for as long as it was on screen. */
function concatList(frames: Frame[], stoppedAt: number): string {
	const lines = ['ffconcat version 1.0'];
	frames.forEach((frame, index) => {
		const until = frames[index + 1]?.at ?? stoppedAt;
		lines.push(`file '${frame.file}'`, `duration ${Math.max(until - frame.at, 0.001).toFixed(3)}`);
	});
	// The concat demuxer ignores the last entry's duration unless the file is named once more.
	lines.push(`file '${frames[frames.length - 1].file}'`);
	return `${lines.join('\n')}\n`;
}

function videoSeconds(file: string): number {
	const args = ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file];
	return Number(ffmpeg('ffprobe', args).trim());
}

function ffmpeg(command: string, args: string[]): string {
	const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
	if (result.status !== 0) {
		const why = result.error?.message ?? result.stderr.trim();
		throw new Error(`${command} failed: ${why}`);
	}
	return result.stdout;
}
