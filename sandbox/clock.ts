/**
 * The sandbox's own clock: it starts at real time (or where a state file left it) and runs
 * `timeScale` times faster (0: frozen); tests can also jump it forward. Message lifecycles, validity and
 * delivery dates all read this clock, so a fast clock makes the whole service age faster.
 */
export class Clock {
	private baseReal = Date.now();
	private baseSandbox: number;

	constructor(
		private timeScale: number,
		start = Date.now(),
	) {
		// 0 freezes the clock: it then moves only by advance() or set(), which tests rely on.
		if (!(timeScale >= 0)) throw new Error(`time scale must be 0 or more, got ${timeScale}`);
		this.baseSandbox = start;
	}

	now(): number {
		return Math.floor(this.baseSandbox + (Date.now() - this.baseReal) * this.timeScale);
	}

	get scale(): number {
		return this.timeScale;
	}

	advance(ms: number): void {
		if (!(ms >= 0)) throw new Error(`the clock only moves forward; got ${ms} ms`);
		this.baseSandbox += ms;
	}

	/** Sets the clock (forward only, so reports never go back from a final state to ENROUTE). */
	set(ms: number): void {
		const now = this.now();
		if (!Number.isFinite(ms)) throw new Error('not a time');
		if (ms < now) throw new Error('the clock only moves forward');
		this.baseSandbox = ms;
		this.baseReal = Date.now();
	}
}
