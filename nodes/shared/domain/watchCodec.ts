/**
 * The compact form of one batch's known destinations, as the Bulk SMS Trigger stores it for
 * every unfinished batch. The plain form would be a map from each destination to its status;
 * this one stores plain numbers (almost all destinations) as one sorted, delta-encoded base-36
 * string (k), which of them are pending as base-36 run lengths over that list (r), the few other
 * forms as lists (o, x), and keeps them in one poll as a sorted array of numbers with a flag each
 * (SeenDestinations: binary search instead of a map of 100,000 strings; number and flag packed
 * into one double to sort them together natively).
 *
 * Held equal to the plain map by test/domain/watchCodec.property.test.ts (any destinations and
 * statuses, added over several polls, read back the same) and the change detection that runs
 * through it by test/domain/watch.property.test.ts. What it buys (docs/benchmarks.md, "Stored
 * state of the triggers"): a state several times smaller than a JSON list of the numbers alone,
 * smaller still for consecutive numbers; n8n writes the whole static data on every save.
 */
import { isFinal } from './status';

/** Per unfinished batch. Field names are short on purpose: this is stored for every batch. */
export interface BatchState {
	/** Every plain-number destination seen: sorted, delta-encoded, base 36 (encodeNumbers). */
	k: string;
	/**
	 * Which of k are pending: run lengths over k in base 36, alternating not pending / pending,
	 * starting with not pending ('' when none is pending).
	 */
	r: string;
	/** Every other destination seen (leading zeros, '+', letters), sorted. */
	o?: string[];
	/** Pending destinations whose status is not ENROUTE, and pending ones of o: [msisdn, status]. */
	x?: Array<[string, string]>;
	/** 1 when the last read found every known destination final: a second such read finishes it. */
	d?: 1;
	/** 1 for a batch carried over from the first state version, which kept only pending numbers. */
	a?: 1;
}

const PLAIN_NUMBER = /^[1-9]\d{0,14}$/; // at most 15 digits: always below 2^53, so exact as a number
export const PENDING = 'ENROUTE';
/** What lookups return for a destination seen before whose final status was handled. */
export const HANDLED = '';
/** Positions of destinations that are not among the known plain numbers (see locateAll). */
const NEW_NUMBER = -1;
const OTHER = -2;

// ---------------------------------------------------------------- the destinations seen

/**
 * The destinations of one batch, decoded for one poll: plain numbers in a sorted array with a
 * pending flag each (looked up by binary search, no map of 100,000 strings), the rest in a map.
 */
export class SeenDestinations {
	private numbers: number[] = [];
	private pending: Uint8Array = new Uint8Array(0);
	/** Plain numbers seen for the first time in this poll, packed with their flag (see pack). */
	private addedNumbers: number[] = [];
	/** Status of each pending destination whose status is not ENROUTE, and each non-plain one. */
	private statuses = new Map<string, string>();
	/** Non-plain destinations: the status while pending, HANDLED when final. */
	private others = new Map<string, string>();
	private encodedNumbers: string | undefined;
	pendingCount = 0;

	static decode(batch: BatchState): SeenDestinations {
		const known = new SeenDestinations();
		known.numbers = decodeNumbers(batch.k);
		known.encodedNumbers = batch.k;
		known.pending = decodeRuns(batch.r, known.numbers.length);
		for (const flag of known.pending) known.pendingCount += flag;
		for (const msisdn of batch.o ?? []) known.others.set(msisdn, HANDLED);
		for (const [msisdn, status] of batch.x ?? []) {
			if (known.others.has(msisdn)) {
				known.others.set(msisdn, status);
				known.pendingCount++;
			} else known.statuses.set(msisdn, status);
		}
		return known;
	}

	get size(): number {
		return this.numbers.length + this.addedNumbers.length + this.others.size;
	}

	/**
	 * Where each report's destination is: its index among the known plain numbers, NEW_NUMBER,
	 * or OTHER (not a plain number). undefined when the answer lists a destination twice.
	 */
	locateAll(reports: ReadonlyArray<{ msisdn: string }>): Int32Array | undefined {
		const positions = new Int32Array(reports.length);
		const listed = new Uint8Array(this.numbers.length);
		const newNumbers = new Set<number>();
		const others = new Set<string>();
		for (let i = 0; i < reports.length; i++) {
			const msisdn = reports[i].msisdn;
			if (!PLAIN_NUMBER.test(msisdn)) {
				if (others.has(msisdn)) return undefined;
				others.add(msisdn);
				positions[i] = OTHER;
				continue;
			}
			const number = Number(msisdn);
			const index = this.indexOf(number);
			if (index >= 0) {
				if (listed[index] === 1) return undefined;
				listed[index] = 1;
				positions[i] = index;
			} else {
				if (newNumbers.has(number)) return undefined;
				newNumbers.add(number);
				positions[i] = NEW_NUMBER;
			}
		}
		return positions;
	}

	/** The pending status, HANDLED for a known final destination, undefined for an unknown one. */
	statusAt(position: number, msisdn: string): string | undefined {
		if (position === OTHER) return this.others.get(msisdn);
		if (position === NEW_NUMBER) return undefined;
		if (this.pending[position] === 0) return HANDLED;
		return this.statuses.size === 0 ? PENDING : (this.statuses.get(msisdn) ?? PENDING);
	}

	add(msisdn: string, status: string): void {
		const pending = isFinal(status) ? 0 : 1;
		this.pendingCount += pending;
		if (PLAIN_NUMBER.test(msisdn)) {
			this.addedNumbers.push(pack(Number(msisdn), pending));
			this.encodedNumbers = undefined;
			if (pending && status !== PENDING) this.statuses.set(msisdn, status);
		} else this.others.set(msisdn, pending ? status : HANDLED);
	}

	/** A known destination's new status, at the position locateAll gave. */
	setAt(position: number, msisdn: string, status: string): void {
		const pending = isFinal(status) ? 0 : 1;
		if (position === OTHER) {
			this.pendingCount += pending - (this.others.get(msisdn) === HANDLED ? 0 : 1);
			this.others.set(msisdn, pending ? status : HANDLED);
			return;
		}
		this.pendingCount += pending - this.pending[position];
		this.pending[position] = pending;
		if (pending && status !== PENDING) this.statuses.set(msisdn, status);
		else this.statuses.delete(msisdn);
	}

	encode(): BatchState {
		this.mergeAdded();
		// numbers is sorted and without repeats: encodeNumbers' own sort would be wasted on it.
		const k = this.encodedNumbers ?? encodeSorted(this.numbers);
		const batch: BatchState = { k, r: encodeRuns(this.pending) };
		const x: Array<[string, string]> = [...this.statuses];
		for (const [msisdn, status] of this.others) if (status !== HANDLED) x.push([msisdn, status]);
		if (this.others.size > 0) batch.o = [...this.others.keys()].sort(byText);
		if (x.length > 0) batch.x = x.sort(([a], [b]) => byText(a, b));
		return batch;
	}

	private indexOf(number: number): number {
		let low = 0;
		let high = this.numbers.length - 1;
		while (low <= high) {
			const middle = (low + high) >>> 1;
			const value = this.numbers[middle];
			if (value === number) return middle;
			if (value < number) low = middle + 1;
			else high = middle - 1;
		}
		return -1;
	}

	/** Puts this poll's new numbers into the sorted list, flags moving with their numbers. */
	private mergeAdded(): void {
		if (this.addedNumbers.length === 0) return;
		const all = new Float64Array(this.numbers.length + this.addedNumbers.length);
		this.numbers.forEach((number, i) => (all[i] = pack(number, this.pending[i])));
		all.set(this.addedNumbers, this.numbers.length);
		all.sort(); // a typed array sorts numerically, natively: 100,000 numbers in a few ms
		this.numbers = Array.from(all, (packed) => Math.floor(packed / 2));
		this.pending = Uint8Array.from(all, (packed) => packed % 2);
		this.addedNumbers = [];
	}
}

/** A plain number (below 10^15) and its pending flag as one exact double: number × 2 + flag. */
function pack(number: number, flag: number): number {
	return number * 2 + flag;
}

// ---------------------------------------------------------------- compact encodings

/**
 * Sorted, each written as its difference from the previous one in base 36, comma-separated:
 * a list of mobile numbers from one campaign is dense, so most gaps take 2 to 4 characters.
 */
export function encodeNumbers(numbers: readonly number[]): string {
	return encodeSorted([...new Set(numbers)].sort((a, b) => a - b));
}

/** encodeNumbers on numbers already sorted, each once. */
function encodeSorted(sorted: readonly number[]): string {
	let previous = 0;
	let text = '';
	for (const number of sorted) {
		text += (text === '' ? '' : ',') + (number - previous).toString(36);
		previous = number;
	}
	return text;
}

export function decodeNumbers(encoded: string): number[] {
	if (encoded === '') return [];
	let total = 0;
	return encoded.split(',').map((gap) => (total += parseInt(gap, 36)));
}

/**
 * Flags as run lengths in base 36, alternating 0-runs and 1-runs, starting with a 0-run (0 when
 * the first flag is set); trailing 0s are left out. All pending is "0,<n>"; none is ''.
 */
export function encodeRuns(flags: Uint8Array): string {
	const runs: string[] = [];
	let current = 0;
	let length = 0;
	let end = flags.length;
	while (end > 0 && flags[end - 1] === 0) end--;
	for (let i = 0; i < end; i++) {
		if (flags[i] === current) length++;
		else {
			runs.push(length.toString(36));
			current = flags[i];
			length = 1;
		}
	}
	if (end > 0) runs.push(length.toString(36));
	return runs.join(',');
}

/** How many destinations the runs cover, without building them (a damaged one may claim billions). */
export function runsLength(encoded: string): number {
	if (encoded === '') return 0;
	return encoded.split(',').reduce((sum, run) => sum + parseInt(run, 36), 0);
}

/** The flags of `size` destinations; runs past the end are cut off (fill stops at the length). */
export function decodeRuns(encoded: string, size: number): Uint8Array {
	const flags = new Uint8Array(size);
	if (encoded === '') return flags;
	let position = 0;
	encoded.split(',').forEach((text, i) => {
		const run = parseInt(text, 36);
		if (i % 2 === 1) flags.fill(1, position, position + run);
		position += run;
	});
	return flags;
}

/**
 * How many entries a list as encodeNumbers and encodeRuns write it holds (base-36 numbers
 * joined by commas), or undefined when it is not one. Checked and counted in one loop: a regular
 * expression runs out of backtracking stack on a batch of millions of numbers, and split would
 * build a string per entry only to count them.
 */
export function encodedListLength(text: string): number | undefined {
	if (text === '') return 0;
	let entries = 1;
	for (let at = 0; at < text.length; at++) {
		const code = text.charCodeAt(at);
		if (code === 44) {
			if (at === 0 || at === text.length - 1 || text.charCodeAt(at - 1) === 44) return undefined;
			entries++;
		} else if (!((code >= 48 && code <= 57) || (code >= 97 && code <= 122))) return undefined;
	}
	return entries;
}

function byText(a: string, b: string): number {
	return a < b ? -1 : a > b ? 1 : 0;
}
