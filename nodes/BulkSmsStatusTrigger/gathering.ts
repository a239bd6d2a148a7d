/**
 * Callbacks with news that arrive while another is being handed to an execution wait for it, then
 * go together in the next execution, which the first of them starts with the items of all: under
 * load one execution takes several callbacks, and with no load no callback waits.
 *
 * Why: n8n takes a fresh expression isolate for every webhook call of a node that is not its own
 * Webhook node, and another for every execution, each costing the main process milliseconds. A
 * trigger that started one execution per callback paid two where n8n's Webhook node pays one
 * (docs/benchmarks.md, "Callbacks"); gathered, a callback pays its own call's isolate and a share
 * of one execution's.
 *
 * What a waiting callback is told: the answer of the callback that started the execution is
 * n8n's, written once the execution has started (or been queued); the others are answered 200
 * when that answer was 2xx, and 503 otherwise, so that the service sends them again (their reports
 * let go: memory.ts). A report is never in an execution that did not start. A lone callback starts
 * its own execution; test/statusTrigger/exactlyOnce.test.ts holds both ways to the same reports.
 *
 * The gathering also notes every item it hands over, with whether the filters want it, so that the
 * trigger's step in an execution this process started takes that decision as it is (execute.ts).
 */
import type { INodeExecutionData } from 'n8n-workflow';

/** One callback's items for an execution, and whether the filters want each. */
export interface CallbackItems {
	items: INodeExecutionData[];
	wanted: boolean[];
}

export type HandOver =
	/** This callback starts the execution with every callback's items; call `answered` once n8n answered it. */
	| { starts: CallbackItems[]; answered: (started: boolean) => void }
	/** Another callback started the execution with this one's items; `started` tells whether it started. */
	| { startedWith: { started: boolean } };

interface Waiting {
	callback: CallbackItems;
	tell: (handOver: HandOver) => void;
}

export class Gathering {
	private readonly waiting: Waiting[] = [];
	private busy = false;
	/** Each item handed over (its json), and whether the filters want it. */
	private readonly handed = new WeakMap<object, boolean>();

	/** Resolves with this callback's part: starting the execution, or going in another's. */
	join(callback: CallbackItems): Promise<HandOver> {
		callback.items.forEach((item, index) => this.handed.set(item.json, callback.wanted[index]));
		const handOver = new Promise<HandOver>((tell) => this.waiting.push({ callback, tell }));
		if (!this.busy) this.next();
		return handOver;
	}

	/**
	 * Whether the filters want each item, as decided when it was handed over; undefined unless this
	 * process handed over every one (the execution runs where the callbacks came).
	 */
	wantedOf(jsons: readonly object[]): boolean[] | undefined {
		const wanted = jsons.map((json) => this.handed.get(json));
		return wanted.every((one) => one !== undefined) ? (wanted as boolean[]) : undefined;
	}

	/** Everyone waiting goes in one execution, started by the first; the others wait for its answer. */
	private next(): void {
		const group = this.waiting.splice(0);
		this.busy = group.length > 0;
		if (!this.busy) return;
		const [first, ...others] = group;
		let answered = false;
		first.tell({
			starts: group.map((one) => one.callback),
			answered: (started) => {
				if (answered) return;
				answered = true;
				for (const other of others) other.tell({ startedWith: { started } });
				this.next();
			},
		});
	}
}
