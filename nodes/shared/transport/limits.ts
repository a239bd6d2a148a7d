/**
 * How long one request may take and how much of an answer is read. Each is per request
 * (one attempt), body included.
 */
export interface TransportLimits {
	/** Total time from sending to the last byte of the answer (n8n's `timeout` is only idle time). */
	totalMs: number;
	/**
	 * The largest answer read. A get_status report takes ~170 bytes in JSON and ~250 in XML,
	 * so 256 MB holds a batch of a million numbers in either; past it, a clear error instead
	 * of the process running out of memory.
	 */
	maxBodyBytes: number;
	/** The wait before the second attempt of a retried call; it doubles for each next one. */
	firstRetryMs: number;
}

export const DEFAULT_LIMITS: Readonly<TransportLimits> = {
	totalMs: 60_000,
	maxBodyBytes: 256 * 1024 * 1024,
	firstRetryMs: 500,
};

let current: Readonly<TransportLimits> = DEFAULT_LIMITS;

/**
 * For tests only, which run workflows whose nodes cannot pass CallOptions: shorter limits for
 * every call until the returned function restores the previous ones.
 */
export function overrideTransportLimits(limits: Partial<TransportLimits>): () => void {
	const previous = current;
	current = { ...current, ...limits };
	return () => {
		current = previous;
	};
}

/** The limits of one call: the call's own, else the current ones. */
export function limitsFor(own: Partial<TransportLimits> = {}): TransportLimits {
	return { ...current, ...own };
}

/** "64 MB", "1.5 MB", "800 bytes": a size as the error messages give it. */
export function describeSize(bytes: number): string {
	if (bytes < 1024 * 1024) return `${bytes} bytes`;
	return `${Number((bytes / (1024 * 1024)).toFixed(1))} MB`;
}

/** "60 s", "1.5 s". */
export function describeDuration(ms: number): string {
	return `${Number((ms / 1000).toFixed(1))} s`;
}
