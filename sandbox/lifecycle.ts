/**
 * Where a message is in its life at a given sandbox time. Computed on demand from when it was sent,
 * its validity and its test-number rule, so a sped-up or advanced clock needs no timers.
 */
import { testNumberRule, type ReportStatus } from './numbers';
import type { Batch, Message } from './store';

export interface MessageState {
	status: ReportStatus;
	/** When it reached its final state; undefined while ENROUTE. */
	finalAt?: number;
}

const ENROUTE: MessageState = { status: 'ENROUTE' };

function natural(batch: Batch, message: Message, now: number, finalAfterMs: number): MessageState {
	const rule = testNumberRule(message.msisdn);
	const expired: MessageState = { status: 'EXPIRED', finalAt: message.validUntil };
	if (rule.timing === 'never') return ENROUTE;
	if (rule.timing === 'at-validity-end') return now >= message.validUntil ? expired : ENROUTE;
	const finalAt = batch.submittedAt + finalAfterMs;
	// A network gives up on a message whose validity ends before it could be delivered.
	if (finalAt > message.validUntil) return now >= message.validUntil ? expired : ENROUTE;
	return now >= finalAt ? { status: rule.status, finalAt } : ENROUTE;
}

export function stateAt(
	batch: Batch,
	message: Message,
	now: number,
	finalAfterMs: number,
): MessageState {
	const current = natural(batch, message, now, finalAfterMs);
	const forced = message.forced;
	// A forced status is a test tool: it applies from its time on, whatever came before.
	if (!forced || now < forced.at) return current;
	return { status: forced.status, finalAt: forced.status === 'ENROUTE' ? undefined : forced.at };
}
