/** Waiting in the e2e suites, where the server under test runs in other processes. */
import { sleep } from '../scripts/n8n/processes';

export { sleep };

/** Resolves once `condition()` holds, checked every 200 ms; fails after `timeoutMs`. */
export async function waitUntil(
	condition: () => boolean | Promise<boolean>,
	timeoutMs: number,
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!(await condition())) {
		if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms`);
		await sleep(200);
	}
}
