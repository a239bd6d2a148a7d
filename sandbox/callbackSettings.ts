/* eslint-disable
	@n8n/community-nodes/require-node-api-error
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * What a sandbox's status callbacks may be set to (sandbox/README.md, "Status callbacks"): where
 * a batch's callbacks go, the settings with their defaults and bounds, and the callback URL's
 * rules. callbacks.ts delivers; the store keeps each batch's target.
 */
import type { Format } from './render';

/** Where a batch's callbacks go, fixed when it is accepted (so receive_updates stays true). */
export interface CallbackTarget {
	url: string;
	format: Format;
}

export type CallbackFaultKind = 'duplicate' | 'reorder' | 'delay' | 'burst';
export const CALLBACK_FAULT_KINDS: readonly CallbackFaultKind[] = [
	'duplicate',
	'reorder',
	'delay',
	'burst',
];

export interface CallbackOptions {
	/** At most this many reports per callback; changes seen together are grouped up to it. */
	batchSize: number;
	/** Tries per callback, the first included; after the last one it is given up ("failed"). */
	maxAttempts: number;
	/** Real ms before the first retry; doubled for each next one, at most 30 s. */
	retryBaseMs: number;
	/** Real ms a receiver has to answer before the try counts as failed. */
	timeoutMs: number;
	/**
	 * Shares (0 to 1) of callbacks sent twice, sent after the next one, delayed, or whose first try
	 * goes out as `burstCopies` copies at once (a sender that times out and resends while the
	 * first copy is still being handled).
	 */
	duplicateRate: number;
	reorderRate: number;
	delayRate: number;
	burstRate: number;
	burstCopies: number;
	/** Real ms a delayed callback waits before its first try. */
	delayMs: number;
	/** Real ms between the acknowledgement of a duplicated callback and its second copy. */
	duplicateAfterMs: number;
	/** Real ms between one callback's end and the next one to the same URL (0: at once). */
	spacingMs: number;
	/** Callbacks to one URL under way at once (1: one at a time, in order). */
	inFlight: number;
	seed: number;
}

export const DEFAULT_CALLBACKS: CallbackOptions = {
	batchSize: 1,
	maxAttempts: 5,
	retryBaseMs: 250,
	timeoutMs: 5000,
	duplicateRate: 0,
	reorderRate: 0,
	delayRate: 0,
	burstRate: 0,
	burstCopies: 5,
	delayMs: 1000,
	duplicateAfterMs: 0,
	spacingMs: 0,
	inFlight: 1,
	seed: 1,
};

export function checkCallbackOptions(options: CallbackOptions): void {
	const known = new Set(Object.keys(DEFAULT_CALLBACKS));
	const unknown = Object.keys(options).filter((k) => !known.has(k));
	if (unknown.length) throw new Error(`unknown callback setting(s): ${unknown.join(', ')}`);
	for (const key of ['duplicateRate', 'reorderRate', 'delayRate', 'burstRate'] as const) {
		if (!(options[key] >= 0 && options[key] <= 1)) throw new Error(`${key} must be from 0 to 1`);
	}
	if (!(Number.isInteger(options.batchSize) && options.batchSize >= 1))
		throw new Error('batchSize must be a whole number, 1 or more');
	if (!(Number.isInteger(options.maxAttempts) && options.maxAttempts >= 1))
		throw new Error('maxAttempts must be a whole number, 1 or more');
	if (!(Number.isInteger(options.inFlight) && options.inFlight >= 1))
		throw new Error('inFlight must be a whole number, 1 or more');
	if (!(Number.isInteger(options.burstCopies) && options.burstCopies >= 2))
		throw new Error('burstCopies must be a whole number, 2 or more');
	for (const key of [
		'retryBaseMs',
		'timeoutMs',
		'delayMs',
		'duplicateAfterMs',
		'spacingMs',
	] as const) {
		if (!(options[key] >= 0)) throw new Error(`${key} must be 0 or more`);
	}
}

/** A URL's user:password@ becomes HTTP Basic (fetch refuses URLs that carry credentials). */
export function splitCredentials(url: string): { url: string; authorization?: string } {
	const parsed = new URL(url);
	if (!parsed.username && !parsed.password) return { url };
	const user = decodeURIComponent(parsed.username);
	const password = decodeURIComponent(parsed.password);
	parsed.username = '';
	parsed.password = '';
	const token = Buffer.from(`${user}:${password}`).toString('base64');
	return { url: parsed.toString(), authorization: `Basic ${token}` };
}

/** The URL to show in views and logs: the password never appears. */
export function blankPassword(url: string): string {
	try {
		const parsed = new URL(url);
		if (parsed.password) parsed.password = '***';
		return parsed.toString();
	} catch {
		return '(not a URL)';
	}
}

/** A callback URL is http(s) and absolute; anything else is refused when it is set. */
export function checkCallbackUrl(url: string): void {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		throw new Error(`callback URL "${blankPassword(url)}" is not an absolute URL`);
	}
	if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
		throw new Error('a callback URL starts with http:// or https://');
}
