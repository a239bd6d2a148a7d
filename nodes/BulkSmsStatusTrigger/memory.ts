/**
 * The Status Trigger's one memory: for each message it was called back about, the statuses it
 * has had, each with the hour it first came. A report is a repeat when its message had that
 * status already, and late when it is not final and its message had a final status: both are
 * answered without starting the workflow.
 *
 * Kept by a message's life: each report for MEMORY_DAYS from its first callback, so a message's
 * final status for 8 days after it came, longer than the interface's default validity of 7 days
 * (docs/interface.md, 2.1) and than providers' retries. Bounded: at most Memory Size reports of
 * ENTRY_LENGTH characters each; past it the oldest go first, and a repeat of one forgotten is news.
 *
 * Where it lives: in the workflow's static data, which n8n reads with the workflow for every
 * callback and writes whole when a step ends (last writer wins); and in each n8n process, which
 * keeps what it learned lately and adds it to every write, so that no write of its own leaves out
 * what it knows (toJSON runs when n8n writes, not when a step gives it the memory). The process
 * also holds the reports of callbacks it is handing to an execution, so that copies arriving
 * together are told apart with no await between the look-up and the hold.
 */
import { createHash } from 'crypto';

import { isFinal, isStatus, STATUSES, type Status } from '../shared/domain/status';

export const MEMORY_DAYS = 8;
export const DEFAULT_MEMORY_SIZE = 100_000;
export const MAX_MEMORY_SIZE = 1_000_000;

/** Key of the memory in the node's static data. */
export const MEMORY_KEY = 'memory';

/**
 * An entry: its message (MESSAGE_LENGTH characters of a hash), its status (STATUS_LENGTH), and
 * the hour it first came (HOUR_LENGTH, base 36), concatenated without separators. A report is
 * the message and status: REPORT_LENGTH characters.
 */
const MESSAGE_LENGTH = 10;
const STATUS_LENGTH = 2;
const HOUR_LENGTH = 4;
const REPORT_LENGTH = MESSAGE_LENGTH + STATUS_LENGTH;
export const ENTRY_LENGTH = REPORT_LENGTH + HOUR_LENGTH;
/** The characters of every part of an entry (a pattern per entry would recurse on megabytes). */
const ENTRY_CHARACTERS = /^[A-Za-z0-9_-]*$/;

/** Hours are counted from here: four base-36 digits last until the year 2215. */
const EPOCH_MS = Date.UTC(2024, 0, 1);
const HOUR_MS = 3_600_000;

/** The interface's codes by name; any other code (pending) by a hash, in lower case. */
const CODES: Record<Status, string> = {
	ENROUTE: 'EN',
	DELIVRD: 'DE',
	EXPIRED: 'EX',
	DELETED: 'DL',
	UNDELIV: 'UN',
	ACCEPTD: 'AC',
	UNKNOWN: 'UK',
	REJECTD: 'RE',
};
const FINAL_CODES = STATUSES.filter(isFinal).map((status) => CODES[status]);

/** The fields that name one status of one message. */
export type ReportKey = {
	batch_id: string;
	gateway_session_id: string;
	msisdn: string;
	status: string;
};

function hashed(text: string, length: number): string {
	return createHash('sha256').update(text).digest('base64url').slice(0, length);
}

/**
 * 60 bits of SHA-256: two messages among a million share one with odds of about 1 in 2 million.
 * The gateway_session_id names the message as well as its number: a batch may hold a number twice.
 */
function messageOf(report: ReportKey): string {
	return hashed(`${report.batch_id}|${report.gateway_session_id}|${report.msisdn}`, MESSAGE_LENGTH);
}

function codeOf(status: string): string {
	if (isStatus(status)) return CODES[status];
	const n = createHash('sha256').update(status).digest().readUInt16BE(0) % 1296;
	return n.toString(36).padStart(STATUS_LENGTH, '0');
}

/** The report's name in the memory: its message and its status. */
export function reportId(report: ReportKey): string {
	return messageOf(report) + codeOf(report.status);
}

/** The hour `ms` falls in, as stored: base-36 hours since EPOCH_MS. */
export function hourStamp(ms: number): string {
	return Math.floor((ms - EPOCH_MS) / HOUR_MS)
		.toString(36)
		.padStart(HOUR_LENGTH, '0');
}

/** Entries first heard before this hour are forgotten. */
function oldestKept(now: number): string {
	return hourStamp(now - MEMORY_DAYS * 24 * HOUR_MS);
}

/** Whether the entry at `at` came before `hour`: compared in place, as the digits sort. */
function cameBefore(stored: string, at: number, hour: string): boolean {
	for (let i = 0; i < HOUR_LENGTH; i++) {
		const digit = stored.charCodeAt(at + REPORT_LENGTH + i);
		const other = hour.charCodeAt(i);
		if (digit !== other) return digit < other;
	}
	return false;
}

/** The memory as stored, or '' for anything else. */
export function readStored(stored: unknown): string {
	if (stored instanceof MemoryToStore) return stored.toJSON();
	const readable =
		typeof stored === 'string' &&
		stored.length % ENTRY_LENGTH === 0 &&
		ENTRY_CHARACTERS.test(stored);
	return readable ? stored : '';
}

function* storedEntries(stored: string): Generator<[report: string, hour: string]> {
	for (let at = 0; at < stored.length; at += ENTRY_LENGTH)
		yield [
			stored.slice(at, at + REPORT_LENGTH),
			stored.slice(at + REPORT_LENGTH, at + ENTRY_LENGTH),
		];
}

// ---------------------------------------------------------------- one callback's reports

export interface Sifted<R> {
	/** Reports not known before, in the order received. */
	fresh: R[];
	/** Known before: the same status of the same message, in memory or earlier in the callback. */
	repeated: number;
	/** Not final, while its message had a final status: it arrived late, out of order. */
	late: number;
	/** The reports the fresh ones add to the memory, each once. */
	ids: string[];
}

/** Whether the memory holds this report (message and status). */
type Knows = (report: string) => boolean;

/** Splits a callback's reports into news, repeats and late ones, against what is known. */
export function sift<R extends ReportKey>(reports: readonly R[], knows: Knows): Sifted<R> {
	const added = new Set<string>();
	const has = (report: string) => added.has(report) || knows(report);
	const sifted: Sifted<R> = { fresh: [], repeated: 0, late: 0, ids: [] };
	for (const report of reports) {
		const message = messageOf(report);
		const id = message + codeOf(report.status);
		if (has(id)) sifted.repeated++;
		else if (!isFinal(report.status) && FINAL_CODES.some((code) => has(message + code)))
			sifted.late++;
		else {
			sifted.fresh.push(report);
			added.add(id);
		}
	}
	sifted.ids = [...added];
	return sifted;
}

/** Above this many look-ups in one go, an index of the stored memory is cheaper than searching. */
const SEARCHES_WORTH_AN_INDEX = 16;

/**
 * Whether the stored memory holds a report, for about `lookups` look-ups: each message searched
 * once in the text (a match must start on an entry), its statuses kept for the next look-up; or,
 * for many, looked up in an index built once. Entries past their time are not found.
 */
export function storedKnows(stored: string, now: number, lookups: number): Knows {
	const oldest = oldestKept(now);
	const kept = (at: number) => !cameBefore(stored, at, oldest);
	if (lookups > SEARCHES_WORTH_AN_INDEX) {
		const index = new Set<string>();
		for (let at = 0; at < stored.length; at += ENTRY_LENGTH)
			if (kept(at)) index.add(stored.slice(at, at + REPORT_LENGTH));
		return (report) => index.has(report);
	}
	const messages = new Map<string, Set<string>>();
	const reportsOf = (message: string) => {
		const found = new Set<string>();
		for (let at = stored.indexOf(message); at >= 0; at = stored.indexOf(message, at + 1))
			if (at % ENTRY_LENGTH === 0 && kept(at)) found.add(stored.slice(at, at + REPORT_LENGTH));
		messages.set(message, found);
		return found;
	};
	return (report) => {
		const message = report.slice(0, MESSAGE_LENGTH);
		return (messages.get(message) ?? reportsOf(message)).has(report);
	};
}

// ---------------------------------------------------------------- one trigger in this process

/** A callback's reports as the memory sorts them (see TriggerMemory.receive). */
export interface Received<R> {
	/** Reports not known before, in the order received, each with whether the filters want it. */
	news: Array<{ report: R; wanted: boolean }>;
	/** Known before: the same status of the same message, in memory or earlier in the callback. */
	repeated: number;
	/** Not final, while its message had a final status: it arrived late, out of order. */
	late: number;
	/**
	 * Given when the filters want some news: the news is held until this is told whether the
	 * execution carrying it started (then it is remembered) or not (then it is let go, so that the
	 * service's next try is news).
	 */
	settle?: (started: boolean) => void;
}

/** What a callback is sorted by: the filters, the Memory Size option and the clock. */
export interface Rules<R> {
	wanted: (report: R) => boolean;
	size: number;
	clock: () => number;
}

type StaticData = Record<string, unknown>;

/**
 * One trigger's memory as one n8n process has it: what it learned lately, added to every write of
 * the static data (see the header), and the reports of callbacks it is handing to an execution.
 */
export class TriggerMemory {
	/** Reports this process learned, with the hour each first came, oldest first. */
	private readonly learned = new Map<string, string>();
	/** Reports of callbacks being handed to an execution, and how many such callbacks hold each. */
	private readonly held = new Map<string, number>();

	/**
	 * Sorts one callback's reports against what is known: by this process, then in the node's
	 * static data. With no news the filters want, no execution starts and n8n saves this call's
	 * static data: the news is remembered there at once. Otherwise the news is held until
	 * `settle`. No await from the look-up to the hold, so that copies of a callback arriving
	 * together in this process are told apart.
	 */
	receive<R extends ReportKey>(
		reports: readonly R[],
		staticData: StaticData,
		rules: Rules<R>,
	): Received<R> {
		const stored = readStored(staticData[MEMORY_KEY]);
		const storedHas = storedKnows(stored, rules.clock(), 8 * reports.length);
		const sifted = sift(reports, (report) => this.knows(report) || storedHas(report));
		const news = sifted.fresh.map((report) => ({ report, wanted: rules.wanted(report) }));
		const received = { news, repeated: sifted.repeated, late: sifted.late };
		if (!news.some((one) => one.wanted)) {
			// Written only when it learned something, so that a mere repeat never writes over
			// what an execution is about to save.
			if (sifted.ids.length > 0) {
				this.learn(sifted.ids, rules.clock());
				this.store(staticData, stored, rules.size, rules.clock);
			}
			return received;
		}
		this.hold(sifted.ids);
		let settled = false;
		const settle = (started: boolean) => {
			if (settled) return;
			settled = true;
			this.release(sifted.ids, started, rules.clock());
		};
		return { ...received, settle };
	}

	/**
	 * Remembers reports an execution carried, here and in the node's static data for n8n to save
	 * when the execution ends (see MemoryToStore), as of `clock()` then.
	 */
	keep(ids: readonly string[], staticData: StaticData, size: number, clock = Date.now): void {
		this.learn(ids, clock());
		this.store(staticData, readStored(staticData[MEMORY_KEY]), size, clock);
	}

	/** Known to this process: learned, or held by a callback being handed over. */
	private knows(report: string): boolean {
		return this.held.has(report) || this.learned.has(report);
	}

	private learn(reports: Iterable<string>, now: number): void {
		const hour = hourStamp(now);
		for (const report of reports) if (!this.learned.has(report)) this.learned.set(report, hour);
	}

	private hold(reports: readonly string[]): void {
		for (const report of reports) this.held.set(report, (this.held.get(report) ?? 0) + 1);
	}

	/** A callback that held `reports` was answered: kept when its execution started, else let go. */
	private release(reports: readonly string[], started: boolean, now: number): void {
		for (const report of reports) {
			const holders = (this.held.get(report) ?? 1) - 1;
			if (holders > 0) this.held.set(report, holders);
			else this.held.delete(report);
		}
		if (started) this.learn(reports, now);
	}

	/**
	 * Puts the memory into the node's static data, for n8n to write when it writes them: then,
	 * what was stored, with what this process knows added, past entries dropped, the newest
	 * `size` kept, as of `clock()` then.
	 */
	private store(staticData: StaticData, stored: string, size: number, clock: () => number): void {
		staticData[MEMORY_KEY] = new MemoryToStore(stored, this, size, clock);
	}

	/**
	 * The memory to store at `now`: the stored entries still kept that this process did not
	 * learn, in their order, then what it learned, in the order it learned them; the first ones
	 * dropped beyond `size`. What this process learned is forgotten by the same rules. One pass,
	 * copying runs of kept entries whole: n8n writes this on every execution's end, and
	 * test/statusTrigger/memory.test.ts holds it to the plain rule.
	 */
	merged(stored: string, now: number, size: number): string {
		const oldest = oldestKept(now);
		for (const [report, hour] of this.learned) if (hour < oldest) this.learned.delete(report);
		for (const report of this.learned.keys()) {
			if (this.learned.size <= size) break;
			this.learned.delete(report);
		}
		const parts: string[] = [];
		const learning = this.learned.size > 0;
		let run = 0;
		const skip = (at: number) => {
			if (run < at) parts.push(stored.slice(run, at));
			run = at + ENTRY_LENGTH;
		};
		for (let at = 0; at < stored.length; at += ENTRY_LENGTH) {
			const gone = cameBefore(stored, at, oldest);
			if (gone || (learning && this.learned.has(stored.slice(at, at + REPORT_LENGTH)))) skip(at);
		}
		skip(stored.length);
		for (const [report, hour] of this.learned) parts.push(report, hour);
		const text = parts.join('');
		return text.slice(Math.max(0, text.length - size * ENTRY_LENGTH));
	}
}

/**
 * What a step gives n8n to store: the memory as it is when n8n writes it, some time after the
 * step (when the execution ends; after the answer, for a webhook call), through JSON, which calls
 * toJSON. So an execution that ends after a later callback was learned writes that callback too.
 */
class MemoryToStore {
	constructor(
		private readonly stored: string,
		private readonly memory: TriggerMemory,
		private readonly size: number,
		private readonly clock: () => number,
	) {}

	toJSON(): string {
		return this.memory.merged(this.stored, this.clock(), this.size);
	}
}

// ---------------------------------------------------------------- in words

/** The stored memory in words, for a person reading n8n's database (docs/trigger-state.md). */
export function describeMemory(stored: unknown, now = Date.now()): string {
	const text = readStored(stored);
	if (text === '' && stored !== '')
		return 'Not a Bulk SMS Status Trigger memory: the next callback starts with nothing known.';
	const oldest = oldestKept(now);
	const byStatus = new Map<string, number>();
	const messages = new Set<string>();
	let kept = 0;
	let first = '';
	for (const [report, hour] of storedEntries(text)) {
		if (hour < oldest) continue;
		kept++;
		first ||= hour;
		messages.add(report.slice(0, MESSAGE_LENGTH));
		const code = report.slice(MESSAGE_LENGTH);
		const status = STATUSES.find((name) => CODES[name] === code) ?? 'other codes';
		byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
	}
	const count = (n: number) => n.toLocaleString('en-US');
	const statuses = [...byStatus].map(([status, n]) => `${count(n)} ${status}`).join(', ');
	const since = kept > 0 ? `, the oldest first heard ${timeOfStamp(first)}` : '';
	return `Bulk SMS Status Trigger memory: ${count(kept)} report(s) of ${count(messages.size)} message(s)${statuses ? ` (${statuses})` : ''}${since}; each is kept ${MEMORY_DAYS} days from its first callback.`;
}

function timeOfStamp(hour: string): string {
	return new Date(EPOCH_MS + parseInt(hour, 36) * HOUR_MS).toISOString().slice(0, 13) + ':00Z';
}
