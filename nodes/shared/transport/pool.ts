/**
 * Runs `task` for each item in list order, at most `limit` at once. Once `stop()` is true no
 * further task starts; those in flight finish. Every node that sends many requests uses this
 * one pool, so that they bound the load on the service the same way.
 */
export async function forEachConcurrently<T>(
	items: readonly T[],
	limit: number,
	task: (item: T) => Promise<void>,
	stop: () => boolean = () => false,
): Promise<void> {
	let next = 0;
	const worker = async () => {
		while (next < items.length && !stop()) await task(items[next++]);
	};
	await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
