/**
 * What a send is made of, from what each item gave to the requests that go out: shared by the
 * reading of items (itemReader.ts), the refusal of bad rows (refusals.ts), the plan (plan.ts), and
 * the run and its output.
 */
import type { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { WireFormat } from '../../../shared/domain/body';
import type { MessageMeasure, SmartEncoding } from '../../../shared/domain/message';
import type { Validity } from '../../../shared/domain/validity';

export const OPTED_OUT = 'opted out';
export const DUPLICATE = 'duplicate';
/** The reason of an item whose Destinations gave nothing at all (an empty cell of a sheet). */
export const NO_NUMBER = 'no number given';

export interface Skipped {
	input: string;
	reason: string;
	item: number;
	/** For a number given by several items of one send: the item it was sent with. */
	sent_with_item?: number;
}

/** What one item gave: the numbers to send, and the entries left out with why. */
export interface Numbers {
	item: number;
	destinations: string[];
	skipped: Skipped[];
}

/** An item or a group that cannot be sent (under Continue On Fail), with its numbers when read. */
export interface ItemFailure {
	items: number[];
	error: NodeApiError | NodeOperationError;
	numbers?: Numbers[];
}

/** Settings of the whole run, read from the first item. */
export interface RunSettings {
	combine: boolean;
	group: boolean;
	concurrency: number;
	output: 'batch' | 'destination';
	/** As given; checked when the credits are counted. */
	maxCredits?: unknown;
}

/** One message to the numbers of one or more items; several requests when it is long. */
export interface Send {
	items: number[];
	/** The text as sent (after Smart Encoding). */
	message: string;
	measure: MessageMeasure;
	smart?: SmartEncoding & { before: MessageMeasure };
	validity: Validity | undefined;
	format: WireFormat;
	destinations: string[];
	/** The item each destination came from, for pairedItem; empty for a send of one item. */
	sources: Map<string, number>;
	skipped: Skipped[];
	duplicates: number;
	chunks: string[][];
}

export interface Plan {
	settings: RunSettings;
	sends: Send[];
	/** Items (or a combined group) that cannot be sent, under Continue On Fail. */
	failures: ItemFailure[];
}

/** What one item asks for, read once. */
export interface ItemSend extends Numbers {
	written: string;
	smartEncoding: boolean;
	validity: Validity | undefined;
	format: WireFormat;
	maxPerRequest: number;
	onInvalid: string;
	duplicates: number;
}
