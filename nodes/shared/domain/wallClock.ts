/**
 * A wall-clock time without a zone, as the service writes dates: as fields (WallClock) and as
 * milliseconds read as if it were UTC (WallTime). Shared by the dates' reading (dates.ts), the
 * zone offsets (zoneOffsets.ts) and ISO formatting (isoFormat.ts).
 */

export interface WallClock {
	year: number;
	month: number; // 1..12
	day: number;
	hour: number;
	minute: number;
	second: number;
	millisecond?: number;
}

/**
 * A bare wall-clock time (no zone) as milliseconds, read as if it were UTC. It is what the
 * service writes; the credential's zone turns it into an instant later (wallToIso), so a date
 * is read once, at the edge, whatever zone it is shown in.
 */
export type WallTime = number;

export const DAY = 86_400_000;

/** The wall clock's fields as milliseconds, read as if they were UTC. */
export function wallAsUtc(w: WallClock): number {
	const ms = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second, w.millisecond ?? 0);
	// Date.UTC maps years 0..99 to 1900..1999; set the year explicitly.
	if (w.year >= 0 && w.year < 100) {
		const date = new Date(ms);
		date.setUTCFullYear(w.year);
		return date.getTime();
	}
	return ms;
}
