/**
 * Callbacks with news that arrive while another is being handed to an execution wait for it,
 * then ride together in the next execution, one of them carrying the others' reports: under load
 * one execution carries several callbacks, with no callback waiting when there is no load.
 *
 * Why: n8n (2.41, its default expression engine) takes a fresh expression isolate for every webhook
 * call of a node that is not its own Webhook node, and another for every execution; each is a few
 * milliseconds of the main process. A trigger that started one execution per callback paid two
 * where n8n's Webhook node pays one, and fell far short of its rate, however little it did
 * itself (docs/benchmarks.md, "Callbacks"). Gathered, a callback pays its own call's isolate and a
 * share of one execution's.
 *
 * What a rider is told: the carrier's answer is n8n's, written once its execution has started (or
 * been queued); a rider is answered 200 when that answer was 2xx, and 503 otherwise, so that the
 * service sends it again (its keys let go: knownReports.ts). A rider's reports are never in an
 * execution that did not start. The plain path, one execution per callback, is what a lone
 * callback takes; test/statusTrigger/exactlyOnce.test.ts holds the two to the same reports.
 */
import type { INodeExecutionData } from 'n8n-workflow';

/** One callback's share of an execution. */
export interface Parcel {
	items: INodeExecutionData[];
}

export type Turn =
	/** This callback starts the execution with every parcel's items; call `handedOver` once answered. */
	| { carries: Parcel[]; handedOver: (started: boolean) => void }
	/** Another callback carried this one's items; `started` tells whether its execution started. */
	| { riddenWith: { started: boolean } };

interface Seat {
	parcel: Parcel;
	take: (turn: Turn) => void;
}

export class Gathering {
	private readonly seats: Seat[] = [];
	private busy = false;

	/** Resolves with this callback's part: carrying the execution, or riding in another's. */
	join(parcel: Parcel): Promise<Turn> {
		const turn = new Promise<Turn>((take) => this.seats.push({ parcel, take }));
		if (!this.busy) this.next();
		return turn;
	}

	/** Everyone seated goes in one execution, carried by the first; the others wait for its answer. */
	private next(): void {
		const group = this.seats.splice(0);
		this.busy = group.length > 0;
		if (!this.busy) return;
		const [carrier, ...riders] = group;
		let answered = false;
		carrier.take({
			carries: group.map((seat) => seat.parcel),
			handedOver: (started) => {
				if (answered) return;
				answered = true;
				for (const rider of riders) rider.take({ riddenWith: { started } });
				this.next();
			},
		});
	}
}
