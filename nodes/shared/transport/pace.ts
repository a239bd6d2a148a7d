import { sleep } from 'n8n-workflow';

/**
 * Requests that go out together share one pace: a 429 or a 503 holds all of them until its
 * Retry-After has passed, not only the request that met it, since they hit the same limit.
 */
export class RequestPace {
	private until = 0;

	hold(ms: number): void {
		this.until = Math.max(this.until, Date.now() + ms);
	}

	async ready(): Promise<void> {
		for (let wait = this.until - Date.now(); wait > 0; wait = this.until - Date.now()) {
			await sleep(wait);
		}
	}
}
