/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	@n8n/community-nodes/require-node-api-error
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * The state file: written whole to a temporary file, flushed, then renamed over the old one, so a
 * crash leaves either the previous state or the new one, never half a file.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { StoreSnapshot } from './store';

export async function readState(file: string): Promise<StoreSnapshot | undefined> {
	let text: string;
	try {
		text = await fs.readFile(file, 'utf8');
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
		throw error;
	}
	const snapshot = JSON.parse(text) as StoreSnapshot;
	if (snapshot.version !== 1)
		throw new Error(`${file}: unknown state file version ${String(snapshot.version)}`);
	return snapshot;
}

async function writeAtomically(file: string, text: string): Promise<void> {
	const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
	const handle = await fs.open(temp, 'w');
	try {
		await handle.writeFile(text, 'utf8');
		await handle.sync();
	} finally {
		await handle.close();
	}
	await fs.rename(temp, file);
}

/**
 * Coalesces writes: however many changes arrive while a write runs, one more write follows it,
 * and `save()` resolves once a write that includes the caller's change is on disk.
 */
export class StateWriter {
	private running: Promise<void> | undefined;
	private pending: Promise<void> | undefined;

	constructor(
		private readonly file: string,
		private readonly snapshot: () => StoreSnapshot,
	) {}

	save(): Promise<void> {
		if (this.pending) return this.pending;
		const after = this.running ?? Promise.resolve();
		const next = after
			.catch(() => undefined)
			.then(async () => {
				this.pending = undefined;
				this.running = next;
				try {
					await writeAtomically(this.file, JSON.stringify(this.snapshot(), null, 1));
				} finally {
					if (this.running === next) this.running = undefined;
				}
			});
		this.pending = next;
		return next;
	}
}
