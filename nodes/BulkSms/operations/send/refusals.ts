/**
 * Bad rows, worded: numbers that cannot be sent, an item that must fail for them (Fail the
 * Item), several failing items said in one error, and a run left with nothing to send.
 */
import type { IDataObject, IExecuteFunctions, NodeApiError } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { count, listFew } from '../../../shared/domain/words';
import {
	DUPLICATE,
	NO_NUMBER,
	OPTED_OUT,
	type ItemFailure,
	type Numbers,
	type Send,
	type Skipped,
} from './model';

/** How many bad rows or numbers an error names one by one; the rest are counted. */
const NAMED = 5;

/** An entry left out on purpose (opted out, or sent with an earlier item): not a bad number. */
export function isLeftOut(skipped: Skipped): boolean {
	return skipped.reason === OPTED_OUT || skipped.reason === DUPLICATE;
}

/** One entry as a person reads it: `"12345": too short: …`. */
function entryText(skipped: Skipped): string {
	return skipped.reason === NO_NUMBER ? NO_NUMBER : `"${skipped.input}": ${skipped.reason}`;
}

/** Entries as a person reads them, the first few named and the rest counted. */
export function entriesText(entries: readonly Skipped[], named = NAMED): string {
	return listFew(entries.map(entryText), named, '; ');
}

/** The entries left out because they are not valid numbers. */
export function invalidOf(entries: readonly Skipped[]): Skipped[] {
	return entries.filter((skipped) => !isLeftOut(skipped));
}

/** "Item 1: why; item 3: why and 4 more": bad rows, each with its first reason. */
function rowsText(rows: ReadonlyArray<[item: number, why: string]>): string {
	const text = listFew(
		rows.map(([item, why]) => `item ${item}: ${why}`),
		NAMED,
		'; ',
	);
	return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Invalid Numbers: Fail the Item: the error of an item (or combined send) with a bad number. */
export function refusedNumbers(
	this: IExecuteFunctions,
	numbers: Pick<Numbers, 'skipped'> & { onInvalid: string; item: number },
): NodeOperationError | undefined {
	const invalid = invalidOf(numbers.skipped);
	if (numbers.onInvalid !== 'fail' || invalid.length === 0) return undefined;
	const itemIndex = numbers.item;
	if (invalid.every((skipped) => skipped.reason === NO_NUMBER)) {
		return new NodeOperationError(this.getNode(), 'No destination given; nothing was sent', {
			description:
				'Destinations is empty: give numbers in international format, e.g. 447700900123, or set Invalid Numbers to Skip and Report to skip such rows.',
			itemIndex,
		});
	}
	return new NodeOperationError(
		this.getNode(),
		`${invalid.length} destination(s) are not valid mobile numbers; nothing was sent`,
		{
			description: `${entriesText(invalid)}. Correct them, or set Invalid Numbers to Skip and Report.`,
			itemIndex,
		},
	);
}

/**
 * Invalid numbers typed in Destinations are a mistake in the workflow: once the others are sent,
 * the run fails saying which, so that the user (and an error workflow) hears of it every time.
 */
export function typedMistake(
	this: IExecuteFunctions,
	mistakes: readonly Skipped[],
	sentences: readonly string[],
	items: IDataObject[],
): NodeOperationError {
	const what = `${count(mistakes.length)} number(s) typed in Destinations are not valid: ${entriesText(mistakes)}`;
	const error = new NodeOperationError(this.getNode(), `${what}; the others were sent`, {
		description: [
			...sentences.filter(Boolean),
			'A number typed in the node is a mistake in the workflow, so the run fails once the valid ones are sent: correct Destinations. To skip such numbers and let the run succeed, set Options → Invalid Numbers to Skip and Report.',
		].join(' '),
		itemIndex: mistakes[0].item,
	});
	// What became of every number, as data, as the error of a failed request has it.
	Object.assign(error.context, { items });
	return error;
}

/** Several items that cannot be sent stop the run with one error that names each. */
export function oneError(
	this: IExecuteFunctions,
	failures: readonly ItemFailure[],
): NodeApiError | NodeOperationError {
	if (failures.length === 1) return failures[0].error;
	const rows = failures.map((failure): [number, string] => {
		const invalid = invalidOf((failure.numbers ?? []).flatMap((numbers) => numbers.skipped));
		return [failure.items[0], invalid.length > 0 ? entriesText(invalid, 1) : failure.error.message];
	});
	const badNumbers = failures.every((failure) => failure.numbers !== undefined);
	const hint = badNumbers ? ' Correct them, or set Invalid Numbers to Skip and Report.' : '';
	return new NodeOperationError(
		this.getNode(),
		`${count(failures.length)} items cannot be sent; nothing was sent`,
		{ description: `${rowsText(rows)}.${hint}`, itemIndex: failures[0].items[0] },
	);
}

/**
 * Skip and Report skips bad rows; a run left with nothing to send because of them fails once,
 * naming them (opted-out numbers alone are a choice, not an error).
 */
export function checkSomethingToSend(
	this: IExecuteFunctions,
	sends: readonly Send[],
	items: number,
): void {
	if (sends.some((send) => send.chunks.length > 0)) return;
	const bad = new Map<number, Skipped[]>();
	for (const skipped of invalidOf(sends.flatMap((send) => send.skipped))) {
		const entries = bad.get(skipped.item);
		if (entries) entries.push(skipped);
		else bad.set(skipped.item, [skipped]);
	}
	if (bad.size === 0) return;
	const which =
		items === 1
			? 'the item has no number that can be sent'
			: bad.size === items
				? `none of the ${count(items)} items has a number that can be sent`
				: `no item has a number that can be sent, and ${count(bad.size)} of the ${count(items)} have none that is valid`;
	const rows = [...bad].map(([item, entries]): [number, string] => [item, entriesText(entries, 1)]);
	throw new NodeOperationError(this.getNode(), 'No valid destination to send to', {
		description: `Nothing was sent: ${which}. ${rowsText(rows)}. Give numbers in international format (e.g. 447700900123), or set Default Country Code for numbers written nationally.`,
		itemIndex: rows[0][0],
	});
}
