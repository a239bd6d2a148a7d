/**
 * The trigger's memory as the workflow's static data keeps it: its keys (memory.ts) concatenated
 * into one string, least recently seen first. n8n reads the static data with the workflow for
 * every callback and writes it whole after each execution that changed it: one string is parsed
 * and written in microseconds, where a list of 10,000 strings costs milliseconds each way, and a
 * key is found in it by a search, without building anything (test/statusTrigger/memory.test.ts
 * holds it equal to a set of the same keys).
 */
import type { IDataObject } from 'n8n-workflow';

import { KEY_LENGTH } from './memory';

const KEY_CHARACTERS = /^[A-Za-z0-9_-]*$/;

/**
 * The keys as stored, or '' for anything else. Version 0.1.0 stored a list of the same keys: read
 * as it is, and written back in this form by the next callback that adds one.
 */
export function readStored(stored: unknown): string {
	if (stored instanceof MemoryToStore) return stored.toJSON();
	if (typeof stored === 'string') return isStoredForm(stored) ? stored : '';
	if (!Array.isArray(stored)) return '';
	return stored.filter((key) => typeof key === 'string' && key.length === KEY_LENGTH).join('');
}

function isStoredForm(stored: string): boolean {
	return stored.length % KEY_LENGTH === 0 && KEY_CHARACTERS.test(stored);
}

export function storedCount(stored: string): number {
	return stored.length / KEY_LENGTH;
}

/** Above this many look-ups in one go, a set of the keys is cheaper than searching each. */
const SEARCHES_WORTH_A_SET = 16;

/**
 * A test of whether a key is stored, for `lookups` keys to come: each searched in the string
 * (a match must start on a key's boundary), or, for many, looked up in a set built once.
 */
export function storedLookup(stored: string, lookups: number): (key: string) => boolean {
	if (lookups > SEARCHES_WORTH_A_SET) {
		const keys = new Set(storedKeys(stored));
		return (key) => keys.has(key);
	}
	return (key) => {
		for (let at = stored.indexOf(key); at >= 0; at = stored.indexOf(key, at + 1)) {
			if (at % KEY_LENGTH === 0) return true;
		}
		return false;
	};
}

export function* storedKeys(stored: string): Generator<string> {
	for (let at = 0; at < stored.length; at += KEY_LENGTH) yield stored.slice(at, at + KEY_LENGTH);
}

/** Keys a process knows, least recently seen first (knownReports.ts). */
export interface Recent {
	has(key: string): boolean;
	keys(): Iterable<string>;
}

/**
 * What a step gives n8n to store: the memory as it is when n8n writes it, which n8n does some
 * time after the step (when the execution ends; after the answer, for a webhook call), through
 * JSON, which calls toJSON. So the writes of one process never put an older memory last: an
 * execution that ends after a later callback was remembered writes that callback's keys too.
 */
export class MemoryToStore {
	constructor(
		private readonly stored: string,
		private readonly recent: Recent,
		private readonly limit: number,
	) {}

	toJSON(): string {
		return mergedMemory(this.stored, this.recent, this.limit);
	}
}

/** Puts the memory in the node's static data, for n8n to write when it writes them. */
export function storeMemory(
	staticData: IDataObject,
	key: string,
	stored: string,
	recent: Recent,
	limit: number,
): void {
	staticData[key] = new MemoryToStore(stored, recent, limit) as unknown as IDataObject;
}

/**
 * The memory to store: what was stored, then what this process knows (more recent), the newest
 * `limit` kept. Stored keys are kept although this process does not know them: another process,
 * or this one before a restart, learned them.
 */
export function mergedMemory(stored: string, recent: Recent, limit: number): string {
	const parts: string[] = [];
	for (const key of storedKeys(stored)) if (!recent.has(key)) parts.push(key);
	for (const key of recent.keys()) parts.push(key);
	return parts.slice(Math.max(0, parts.length - limit)).join('');
}
