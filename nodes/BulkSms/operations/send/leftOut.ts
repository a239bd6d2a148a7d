/**
 * What Send says of the numbers it did not send now: each one's reason, in words true to what
 * Send knows (held back by its record, or not sent on the way to a later step); the hint a run
 * gives when it held numbers back; and which output items want a person's action (the Needs
 * Action output).
 */
import type { IDataObject } from 'n8n-workflow';

import { count } from '../../../shared/domain/words';
import type { HeldNumber, SendResults, Skipped } from './model';
import { TURN_BOUND_MS, type Campaign, type UnknownCause } from './record';
import { isLeftOut } from './refusals';

/** An entry of a batch item's `skipped`: a number left out, or held back (with its state). */
type Entry = Skipped & { state?: HeldNumber['state'] };

/** What the earlier run's request met, for a number in doubt. */
const UNKNOWN: Record<UnknownCause | 'stillSending', string> = {
	answer: 'the service answered with an error, which does not say whether it took it',
	connection: 'the connection broke before the service answered',
	refusedWithBatch: 'the service refused it but returned a batch id, so it may have taken it',
	unanswered:
		'no answer was recorded: that run stopped before the service answered (Stop, a crash, n8n restarted), or it is still sending in another n8n process',
	stillSending: `that run, still sending in this n8n process, had not finished with it when this run stopped waiting for it (${TURN_BOUND_MS / 60_000} min): run again once it has ended`,
};

/** Why a number was not sent now, in words true to what Send knows. */
export function heldReason(held: HeldNumber, campaign: Campaign | undefined): string {
	if (held.state === 'not sent') return `not sent: ${laterStepWords(held.laterStep)}; ${TO_SEND}`;
	const by = campaign?.label ?? 'an earlier run';
	const execution = held.execution ? `execution ${held.execution}` : undefined;
	if (held.state === 'in doubt') {
		return `in doubt: ${by}${execution ? ` (${execution})` : ''} handed it to the service and ${UNKNOWN[held.cause ?? 'unanswered']}. Check with your provider, or set Numbers In Doubt to Resend to send it again`;
	}
	const batch = held.batchId
		? `batch ${held.batchId}${held.batchFromRow ? ', as the row says' : ''}`
		: "its batch id is not known here (it was sent by another n8n process, or before n8n restarted): see that run's output";
	const facts = [execution, batch].filter(Boolean).join(', ');
	if (held.laterStep)
		return `sent before (${facts}). ${laterStepWords(held.laterStep)}; ${TO_SEND}`;
	return `sent before: accepted earlier in ${by} (${facts})`;
}

function laterStepWords(laterStep = 'a later step'): string {
	return `n8n ran Send again only on the way to "${laterStep}", the step you executed, so nothing was sent`;
}

const TO_SEND = 'to send, execute Send itself or the whole workflow';

/**
 * What the run did not send now, for a hint on Send (execute.ts): numbers sent before, numbers in
 * doubt (only when there are some), and a run n8n made only on the way to a later step.
 */
export function heldBackHint(sent: readonly SendResults[]): string | undefined {
	const held = sent.flatMap(({ results }) => results.flatMap((r) => ('held' in r ? r.held : [])));
	const laterStep = held.find((number) => number.laterStep)?.laterStep;
	if (laterStep !== undefined) {
		return `${laterStepWords(laterStep)} (${count(held.length)} number(s)); ${TO_SEND}.`;
	}
	const before = held.filter((number) => number.state === 'sent before').length;
	const doubt = held.length - before;
	const campaigns = [...new Set(sent.map((s) => s.campaign?.label).filter(Boolean))].join(', ');
	const said: string[] = [];
	if (before > 0) {
		said.push(
			`Did not send again to ${count(before)} number(s) that ${campaigns} sent this text before (send_outcome "sent before"). To send the same text to them again, give a new Campaign Key or turn off Send Each Number Once.`,
		);
	}
	if (doubt > 0) {
		said.push(
			`${count(doubt)} number(s) are in doubt (send_outcome "in doubt"): ${campaigns} handed them to the service and no answer says whether it took them. Check them with your provider, then leave them, or set Numbers In Doubt to Resend.`,
		);
	}
	return said.length > 0 ? said.join(' ') : undefined;
}

/**
 * Whether an output item wants a person's action: a number meant to get the text that did not
 * (not valid, in doubt, unknown, not sent, refused, failed), or numbers the service dropped. Sent
 * now or before, opted out and repeated rows want none.
 */
export function needsAction(json: IDataObject): boolean {
	const outcome = json.send_outcome;
	const entries = Array.isArray(json.skipped) ? (json.skipped as Entry[]) : [];
	const wanting = (entry: Entry) =>
		entry.state === undefined ? !isLeftOut(entry) : entry.state !== 'sent before';
	if (outcome === 'skipped' && !Array.isArray(json.skipped)) {
		return !isLeftOut({ input: '', item: 0, reason: String(json.reason) });
	}
	if (outcome === 'accepted' || outcome === 'sent before' || outcome === 'skipped') {
		return Number(json.dropped_by_service ?? 0) > 0 || entries.some(wanting);
	}
	return true;
}
