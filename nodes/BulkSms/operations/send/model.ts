/**
 * What a send is made of, from what each item gave to the requests that go out and what became
 * of them: the vocabulary every module of Send stands on (reading items, refusals, the plan, the
 * run, the record, the output).
 */
import type { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { WireFormat } from '../../../shared/domain/body';
import type { MessageMeasure, SmartEncoding } from '../../../shared/domain/message';
import type { SendResponse } from '../../../shared/domain/responses';
import type { Campaign, HeldNumberState } from './record';
import type { Validity } from '../../../shared/domain/validity';
import type { SpeedLimitSetting } from './speedLimit';

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
	/** Send Each Number Once: repeated rows and numbers sent before (the record) are held back. */
	once: boolean;
	/** Hours after the record was last used that an unfinished campaign is resumed. */
	resumeWithinHours: number;
	/** Numbers an earlier run left with an unknown outcome are sent again. */
	resendUnknown: boolean;
	speedLimit?: SpeedLimitSetting;
}

/** One message to the numbers of one or more items; several requests when it is long. */
export interface Send {
	items: number[];
	/** The Campaign option of its items (empty unless named): part of what "the same send" is. */
	campaign: string;
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
	maxPerRequest: number;
	chunks: string[][];
}

export interface Plan {
	settings: RunSettings;
	sends: Send[];
	/** Items (or a combined group) that cannot be sent, under Continue On Fail. */
	failures: ItemFailure[];
	/** Invalid numbers typed in Destinations itself: the run fails once the others are sent. */
	mistakes: Skipped[];
}

/** What one item asks for, read once. */
export interface ItemSend extends Numbers {
	written: string;
	smartEncoding: boolean;
	validity: Validity | undefined;
	format: WireFormat;
	maxPerRequest: number;
	onInvalid: string;
	/** Destinations is typed in the node, not an expression: a bad number there is a mistake. */
	typed: boolean;
	duplicates: number;
	campaign: string;
}

/** The input item a destination of this send came from. */
export function itemOf(send: Send, destination: string): number {
	return send.sources.get(destination) ?? send.items[0];
}

export type Failure = NodeApiError | NodeOperationError;

/**
 * A number not sent now, and why: held back by the record (sent before, or in doubt), or not
 * sent because n8n ran Send only on the way to `laterStep`, a step the user executed after it.
 */
export type HeldNumber = HeldNumberState & {
	msisdn: string;
	/** The batch id came from the row itself (a sheet written back after an earlier run). */
	batchFromRow?: boolean;
	laterStep?: string;
};

/**
 * What became of one request. `not accepted`: the service refused it (nothing taken); `unknown`:
 * it may have been taken; `not sent`: it certainly was not; `held back`: the record held back every
 * number of it (sent before, or in doubt); `not attempted`: it never started because the run
 * stopped first. `sent` is what the request carried: its numbers less those held back.
 */
export type RequestResult =
	| { outcome: 'accepted'; response: SendResponse; sent: string[]; held: HeldNumber[] }
	| {
			outcome: 'not accepted' | 'unknown' | 'not sent';
			response?: SendResponse;
			failure: Failure;
			sent: string[];
			held: HeldNumber[];
	  }
	| { outcome: 'held back'; held: HeldNumber[] }
	| { outcome: 'not attempted' };

/** A request that was made, whatever came of it: it has a batch item of its own. */
export type AttemptedRequest = Exclude<RequestResult, { outcome: 'held back' | 'not attempted' }>;

export interface SendResults {
	send: Send;
	/** The campaign the record counted it in, with Send Each Number Once. */
	campaign?: Campaign;
	/** One per chunk, in chunk order. */
	results: RequestResult[];
}
