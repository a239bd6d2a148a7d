/* eslint-disable
	@n8n/community-nodes/no-dangerous-functions,
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	no-console
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * Peak memory of Get Status over an XML answer of 100,000 reports, against a raw client that
 * fetches the same data as JSON and JSON.parses it. Each runs in a child process of its own
 * (peak RSS is per process), and both load the same modules first, so that what differs is
 * the work.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';

import { inRounds, type Figure } from './figures';
import { jsonAnswer, startReplay, xmlAnswer } from './replay';
import { BATCH, REPORTS_100K } from './status';

export async function figures(): Promise<Figure[]> {
	const replay = await startReplay();
	const spec = { batchId: BATCH, count: REPORTS_100K, finalShare: 0.8 };
	const xml = xmlAnswer(spec);
	const json = jsonAnswer(spec);
	try {
		// A fresh child for every leg; each returns its peak, in MB.
		const peaks = await inRounds({
			engine: () => {
				replay.set(BATCH, xml);
				return childPeakMb('engine', replay.baseUrl);
			},
			raw: () => {
				replay.set(BATCH, json);
				return childPeakMb('raw', replay.baseUrl);
			},
		});
		return [
			{
				scenario: 'rss_status_xml_100k',
				label: 'Peak RSS, Get Status 100,000 reports XML vs raw client',
				measured: peaks.engine.figures,
				baseline: peaks.raw.figures,
				unit: 'MB',
			},
		];
	} finally {
		await replay.stop();
	}
}

/** Runs this file as a child in `mode` and reads the peak RSS it reports. */
async function childPeakMb(mode: string, baseUrl: string): Promise<number> {
	// Asynchronously: the replay server that answers the child runs in this process.
	return await new Promise((resolve, reject) => {
		const child = spawn(process.execPath, ['--import', 'tsx', __filename, mode, baseUrl], {
			cwd: path.resolve(__dirname, '..'),
			stdio: ['ignore', 'pipe', 'inherit'],
		});
		let out = '';
		child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
		child.on('error', reject);
		child.on('close', (code) => {
			const mb = /peak (\d+(?:\.\d+)?)/.exec(out);
			if (code !== 0 || !mb) reject(new Error(`bench: memory child failed (${code}): ${out}`));
			else resolve(Number(mb[1]));
		});
	});
}

async function child(mode: string, baseUrl: string): Promise<void> {
	const { getStatus, rawClient } = await import('./status');
	if (mode === 'engine') await getStatus({ baseUrl }, 'xml', 'UTC');
	else await rawClient({ baseUrl });
	console.log(`peak ${(process.resourceUsage().maxRSS / 1024).toFixed(1)}`);
}

if (require.main === module) void child(process.argv[2], process.argv[3]);
