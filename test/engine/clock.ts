/**
 * Time from the test: jest's fake Date only, stopped at the instant given (moved on with
 * jest.setSystemTime), while the engine's timers, ticks and performance clock run as they do.
 * jest.useRealTimers() gives the day's clock back.
 */
export function stopTheClock(at: number): void {
	jest.useFakeTimers({
		now: at,
		doNotFake: [
			'nextTick',
			'setImmediate',
			'setTimeout',
			'setInterval',
			'queueMicrotask',
			'clearTimeout',
			'clearInterval',
			'clearImmediate',
			'hrtime',
			'performance',
		],
	});
}
