/**
 * Sending Speed Limit: at most N messages (a message to one number) per second, minute or hour,
 * over all the requests of a run, however many are in flight. Each request books its share of
 * time in turn and starts when its turn comes; a request is never larger than one period's
 * messages (plan.ts caps it). The wait is slept in slices, so that Stop is seen within a second.
 */
import { sleep } from 'n8n-workflow';

export interface SpeedLimitSetting {
	messages: number;
	per: 'second' | 'minute' | 'hour';
}

const PERIOD_MS = { second: 1_000, minute: 60_000, hour: 3_600_000 };
const SLICE_MS = 1_000;

export class SpeedLimit {
	private nextStart = 0;
	private readonly msPerMessage: number;

	constructor(setting: SpeedLimitSetting) {
		this.msPerMessage = PERIOD_MS[setting.per] / setting.messages;
	}

	/** Waits for the turn of a request to this many numbers; false when the run was stopped meanwhile. */
	async turnFor(messages: number, stopped: () => boolean): Promise<boolean> {
		const start = Math.max(Date.now(), this.nextStart);
		this.nextStart = start + messages * this.msPerMessage;
		for (let wait = start - Date.now(); wait > 0; wait = start - Date.now()) {
			if (stopped()) return false;
			await sleep(Math.min(wait, SLICE_MS));
		}
		return !stopped();
	}
}
