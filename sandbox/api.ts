/**
 * The two operations of the interface (docs/interface.md 4) as plain functions over the store: the HTTP layer
 * only authenticates, negotiates the format and writes what these return.
 */
import { formatCompactDate, formatJsonDate, parseCompactDate } from './dates';
import { stateAt } from './lifecycle';
import { DEFAULT_VALIDITY_MS, isDeliverable, networkFor, type NetworkRule } from './numbers';
import { countParts } from './parts';
import { RawNumber, type Fields, type Format } from './render';
import type { Account, Batch, Message, Store } from './store';

export interface ApiContext {
	store: Store;
	now: number;
	timeZone: string;
	networks: readonly NetworkRule[];
	finalAfterMs: number;
}

export interface SendOutcome {
	fields: Fields;
	batch?: Batch;
}

function rejected(account: Account, error: string): SendOutcome {
	return {
		fields: [
			['accepted', false],
			['batch_size', 0],
			['receive_updates', false],
			['remaining_credits', account.credits],
			['error', error],
		],
	};
}

/** Empty entries (a trailing comma, ", ,") are not destinations at all; the rest are checked. */
export function splitDestinations(raw: string): string[] {
	return raw
		.split(',')
		.map((d) => d.trim())
		.filter((d) => d !== '');
}

/** The end of validity; `given` false when validity_period was omitted (or empty). */
interface Validity {
	until: number;
	given: boolean;
}

/** The validity asked for, or an error text. */
function requestedValidity(raw: string | null, ctx: ApiContext): Validity | string {
	// docs/interface.md 4.1, rule 4: omitted, the validity is 7 days.
	if (raw === null || raw.trim() === '')
		return { until: ctx.now + DEFAULT_VALIDITY_MS, given: false };
	const at = parseCompactDate(raw.trim(), ctx.timeZone);
	if (at === undefined) return `validity_period "${raw}" is not a date in the form yyMMddHHmmss`;
	if (at <= ctx.now) {
		return `validity_period ${raw} is already past (sandbox time ${formatCompactDate(ctx.now, ctx.timeZone)} ${ctx.timeZone})`;
	}
	return { until: at, given: true };
}

function newMessage(msisdn: string, validity: Validity, ctx: ApiContext): Message {
	const network = networkFor(msisdn, ctx.networks);
	// docs/interface.md 4.1, rule 5 clamps a validity_period beyond the network's maximum; rule 4's default of
	// 7 days is not a validity_period, so it stays 7 days (read literally, as the interface says).
	const max = ctx.now + network.maxValidityMs;
	return {
		msisdn,
		gatewaySessionId: ctx.store.takeSessionId(),
		networkId: network.networkId,
		validUntil: validity.given ? Math.min(validity.until, max) : validity.until,
	};
}

export function send(account: Account, form: URLSearchParams, ctx: ApiContext): SendOutcome {
	const destination = form.get('destination');
	const message = form.get('message');
	if (destination === null) return rejected(account, 'destination is required');
	if (message === null) return rejected(account, 'message is required');
	if (message === '') return rejected(account, 'message is empty');
	const validity = requestedValidity(form.get('validity_period'), ctx);
	if (typeof validity === 'string') return rejected(account, validity);
	const valid = splitDestinations(destination).filter(isDeliverable);
	if (valid.length === 0) {
		return rejected(
			account,
			'no valid destination: use international format, digits only, 8 to 15 digits, no leading 0, an assigned country code',
		);
	}
	if (!ctx.store.hasBatchId()) {
		return rejected(account, 'no batch id left: the next one would have more than 19 digits');
	}
	const { encoding, parts } = countParts(message);
	const cost = parts * valid.length;
	if (cost > account.credits) {
		const need = `${valid.length} destination(s) x ${parts} part(s)`;
		return rejected(
			account,
			`insufficient credits: the batch needs ${cost} (${need}), the account has ${account.credits}`,
		);
	}
	account.credits -= cost;
	const batch: Batch = {
		batchId: ctx.store.takeBatchId(),
		account: account.username,
		message,
		encoding,
		parts,
		creditsCharged: cost,
		submittedAt: ctx.now,
		messages: valid.map((msisdn) => newMessage(msisdn, validity, ctx)),
		...(account.callbackUrl
			? { callback: { url: account.callbackUrl, format: account.callbackFormat ?? 'json' } }
			: {}),
	};
	ctx.store.batches.set(batch.batchId, batch);
	const fields: Fields = [
		['accepted', true],
		['batch_id', new RawNumber(batch.batchId)],
		['batch_size', batch.messages.length],
		// docs/interface.md 6.1: updates come as callbacks, which this account asked for with a callback URL.
		['receive_updates', batch.callback !== undefined],
		['remaining_credits', account.credits],
	];
	return { fields, batch };
}

/** Undoes an accepted send: the batch is forgotten, its credits go back; its ids are not reused. */
export function cancelSend(batch: Batch, store: Store): void {
	store.batches.delete(batch.batchId);
	const account = store.accounts.get(batch.account);
	if (account) account.credits += batch.creditsCharged;
}

/** A batch id is 1 to 19 digits (docs/interface.md 2.2); anything else is a malformed request. */
export const BATCH_ID = /^\d{1,19}$/;

/** Report fields in the order of docs/interface.md 2.3 (JSON) or of docs/interface.md 4.2, rule 2 (XML). */
export function reportFields(
	batch: Batch,
	message: Message,
	format: Format,
	ctx: ApiContext,
): Fields {
	const state = stateAt(batch, message, ctx.now, ctx.finalAfterMs);
	const date =
		state.finalAt === undefined
			? '' // no date yet while ENROUTE: the interface's delivery_date is the date it was finalised
			: format === 'json'
				? formatJsonDate(state.finalAt, ctx.timeZone)
				: formatCompactDate(state.finalAt, ctx.timeZone);
	const field = {
		batch_id: new RawNumber(batch.batchId),
		network_id: message.networkId,
		status: state.status,
		msisdn: message.msisdn,
		gateway_session_id: new RawNumber(message.gatewaySessionId),
		delivery_date: date,
	};
	const order: Array<keyof typeof field> =
		format === 'json'
			? ['batch_id', 'network_id', 'status', 'msisdn', 'gateway_session_id', 'delivery_date']
			: ['msisdn', 'delivery_date', 'network_id', 'status', 'batch_id', 'gateway_session_id'];
	return order.map((k) => [k, field[k]]);
}
