/**
 * Reads what every item asks for, once: the run's settings, then per item its message,
 * validity, options and numbers (opted-out ones left out, with why). Nothing is sent here.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { isExpression, NodeOperationError } from 'n8n-workflow';

import type { WireFormat } from '../../../shared/domain/body';
import { parseDestinations } from '../../../shared/domain/msisdn';
import {
	resolveValidity,
	ValidityError,
	type Validity,
	type ValidityChoice,
} from '../../../shared/domain/validity';
import {
	ASK_N8N,
	compileJsonExpression,
	type JsonExpression,
} from '../../../shared/jsonExpressions';
import { isSameForEveryItem } from '../../../shared/sameForEveryItem';
import { serviceSettings, type AccountOf } from '../../../shared/transport';
import { NO_NUMBER, OPTED_OUT, type ItemSend, type RunSettings } from './model';
import type { SpeedLimitSetting } from './speedLimit';

/** As in the option's description; an expression cannot open more connections than this. */
const MAX_CONCURRENCY = 32;
/** Resume Within (Hours): at most a week, the longest validity a message usually has. */
const MAX_RESUME_HOURS = 168;

export type Reader = <T>(name: string, item: number, fallback: T) => T;

/**
 * Reads parameters per item, as getNodeParameter does, each at the cost of what it depends on.
 * A parameter that is not an expression is the same for every item: it is read once (an
 * opt-out list read from another node would otherwise be resolved per item); so is an
 * expression that reads nothing of the item (`{{ $execution.id }}`, `{{ $now.plus({ days: 1 })
 * }}`: sameForEveryItem.ts), which n8n evaluates for the first item read. An expression that
 * only reads the item's own JSON (`{{ $json.phone }}`, `Hi {{ $json.name }}`) is resolved from
 * the item by jsonExpressions.ts, which gives what n8n would; anything else is left to n8n, per
 * item.
 */
export function parameterReader(context: IExecuteFunctions): Reader {
	const sources = new Map<string, Source>();
	const parameters = context.getNode().parameters;
	let itemJson: ItemJson | undefined;
	const sourceOf = (name: string, item: number, fallback: unknown): Source => {
		const raw = name.split('.').reduce<unknown>((value, key) => {
			return value && typeof value === 'object'
				? (value as Record<string, unknown>)[key]
				: undefined;
		}, parameters);
		if (!isExpression(raw)) return { fixed: context.getNodeParameter(name, item, fallback) };
		const expression = compileJsonExpression(raw);
		if (expression === undefined) {
			return isSameForEveryItem(raw) ? readOnce(name, item, fallback) : { expression };
		}
		itemJson ??= itemJsonOf(context);
		return itemJson.json ? { expression, json: itemJson.json } : { expression: undefined };
	};
	/** n8n's value for this item, for every item; where n8n refuses it, its error per item. */
	const readOnce = (name: string, item: number, fallback: unknown): Source => {
		try {
			return { fixed: context.getNodeParameter(name, item, fallback) };
		} catch {
			return { expression: undefined };
		}
	};
	return <T>(name: string, item: number, fallback: T): T => {
		let source = sources.get(name);
		if (source === undefined) sources.set(name, (source = sourceOf(name, item, fallback)));
		if ('fixed' in source) return source.fixed as T;
		if (source.expression) {
			const value = source.expression(source.json(item));
			if (value !== ASK_N8N) return value as T;
		}
		return context.getNodeParameter(name, item, fallback) as T;
	};
}

/** How a parameter is read: once for the run, or per item (from the item's JSON when it can). */
type Source =
	| { fixed: unknown }
	| { expression: JsonExpression; json: (item: number) => unknown }
	| { expression: undefined };

interface ItemJson {
	json?: (item: number) => unknown;
}

/**
 * The input items' JSON, which is what `$json` means in n8n's expressions when the node runs
 * in a workflow; none when n8n's `$json` is something else (as an AI agent's tool, n8n
 * resolves `$json` over the agent's items while the input is the tool call).
 */
function itemJsonOf(context: IExecuteFunctions): ItemJson {
	const items = context.getInputData();
	try {
		if (items.length > 0 && context.getWorkflowDataProxy(0).$json === items[0].json)
			return { json: (item) => items[item].json };
	} catch {
		// n8n has no `$json` here: it evaluates each item's parameters itself.
	}
	return {};
}

export function readSettings(this: IExecuteFunctions, read: Reader): RunSettings {
	const option = <T>(name: string, fallback: T) => read(`sendOptions.${name}`, 0, fallback);
	// null, not undefined: n8n refuses a missing parameter whose fallback is undefined.
	const maxCredits = option<unknown>('maxCredits', null);
	const resumeWithin = Math.floor(numberOr(option('resumeWithinHours', 12), 12));
	return {
		combine: option('combineItems', false),
		group: option('groupSameMessage', false),
		concurrency: Math.min(
			MAX_CONCURRENCY,
			Math.max(1, Math.floor(numberOr(option('concurrency', 8), 8))),
		),
		output: option<string>('output', 'batch') === 'destination' ? 'destination' : 'batch',
		maxCredits: maxCredits === null || maxCredits === '' ? undefined : maxCredits,
		once: option<unknown>('sendEachNumberOnce', true) !== false,
		resumeWithinHours: Math.min(MAX_RESUME_HOURS, Math.max(1, resumeWithin)),
		resendUnknown: read<string>('inDoubt', 0, 'holdBack') === 'resend',
		speedLimit: speedLimitOf.call(this, option<IDataObject>('speedLimit', {})),
	};
}

/** Sending Speed Limit, if set: a positive number of messages per second, minute or hour. */
function speedLimitOf(this: IExecuteFunctions, given: IDataObject): SpeedLimitSetting | undefined {
	const limit = given.limit as IDataObject | undefined;
	if (!limit) return undefined;
	const messages = numberOr(limit.messages, NaN);
	const per = limit.per ?? 'minute';
	if (!(messages > 0) || !['second', 'minute', 'hour'].includes(per as string)) {
		throw new NodeOperationError(
			this.getNode(),
			`Sending Speed Limit must be a number of messages above 0 per second, minute or hour (got ${String(limit.messages)} per ${String(per)}); nothing was sent`,
			{
				description: 'Give the most messages your provider takes per period, e.g. 100 per minute.',
			},
		);
	}
	return { messages, per: per as SpeedLimitSetting['per'] };
}

/** Everything read once per run (the service's time zone, the opt-out list), then a reader per item. */
export async function itemReader(
	this: IExecuteFunctions,
	read: Reader,
	accountOf: AccountOf,
): Promise<(item: number) => ItemSend> {
	const { timeZone } = await serviceSettings.call(this, 0, await accountOf(0));
	const optedOut = optOuts(read);
	const now = new Date();
	const validityFor = sharedValidities((choice, item) =>
		validityOf.call(this, choice, now, timeZone, item),
	);
	return (item) => {
		const option = <T>(name: string, fallback: T) => read(`sendOptions.${name}`, item, fallback);
		const written = messageOf.call(this, read('message', item, ''), item);
		const choice = validityChoice.call(this, read, item);
		const validity = validityFor(choice, item);
		const itemSend: ItemSend = {
			item,
			written,
			smartEncoding: option('smartEncoding', false),
			validity,
			format: option<WireFormat>('format', 'json'),
			maxPerRequest: Math.max(1, Math.floor(numberOr(option('maxPerRequest', 1000), 1000))),
			onInvalid: option('onInvalid', 'auto'),
			typed: !isExpression(this.getNode().parameters.destinations),
			campaign: campaignKeyOf.call(this, option<unknown>('campaign', ''), item),
			destinations: [],
			skipped: [],
			duplicates: 0,
		};
		addDestinations(
			itemSend,
			read('destinations', item, ''),
			option<unknown>('defaultCountryCode', ''),
		);
		leaveOut(itemSend, optedOut);
		// A row with nothing in Destinations (an empty cell) is a bad row like one with a bad number.
		if (itemSend.destinations.length === 0 && itemSend.skipped.length === 0)
			itemSend.skipped.push({ input: '', reason: NO_NUMBER, item });
		return itemSend;
	};
}

function optOuts(read: Reader): Set<string> {
	const raw = read<unknown>('sendOptions.doNotSendTo', 0, '');
	const defaultCountryCode = read<unknown>('sendOptions.defaultCountryCode', 0, '');
	if (raw === undefined || raw === null || raw === '') return new Set();
	// Entries that are not numbers cannot match a destination (a header cell, a blank): ignored.
	return new Set(parseDestinations(raw, { defaultCountryCode }).destinations);
}

function addDestinations(itemSend: ItemSend, raw: unknown, defaultCountryCode: unknown): void {
	// parseDestinations reads any value, the country code too, and says in words what is wrong.
	const parsed = parseDestinations(raw, { defaultCountryCode });
	itemSend.destinations = parsed.destinations;
	itemSend.duplicates = parsed.duplicates;
	itemSend.skipped = parsed.rejected.map((rejected) => ({ ...rejected, item: itemSend.item }));
}

function leaveOut(itemSend: ItemSend, optedOut: ReadonlySet<string>): void {
	if (optedOut.size === 0) return;
	const kept: string[] = [];
	for (const destination of itemSend.destinations) {
		if (!optedOut.has(destination)) kept.push(destination);
		else itemSend.skipped.push({ input: destination, reason: OPTED_OUT, item: itemSend.item });
	}
	itemSend.destinations = kept;
}

function validityChoice(this: IExecuteFunctions, read: Reader, item: number): ValidityChoice {
	const kind = read<ValidityChoice['kind']>('validity', item, 'serviceDefault');
	// Raw values: resolveValidity checks them and says what is wrong (Number() or String()
	// would throw on some values an expression can give).
	if (kind === 'duration') return { kind, hours: read<unknown>('validityHours', item, 24) };
	if (kind === 'until') {
		const value = read<unknown>('validityUntil', item, '');
		return { kind, value, inputTimeZone: this.getTimezone() };
	}
	return { kind: 'serviceDefault' };
}

type ResolveValidity = (choice: ValidityChoice, item: number) => Validity | undefined;

/**
 * Items with the same choice share one resolved validity (and one "now"): the same plain value,
 * or the same object (a date read once for the run). Objects are held weakly: where n8n
 * evaluates Valid Until per item, each item's date is a new object.
 */
function sharedValidities(resolve: ResolveValidity): ResolveValidity {
	const byValue = new Map<string, Validity | undefined>();
	const byObject = new WeakMap<object, Validity | undefined>();
	return (choice, item) => {
		const given = choice.kind === 'until' ? choice.value : undefined;
		if (typeof given === 'object' && given !== null) {
			if (!byObject.has(given)) byObject.set(given, resolve(choice, item));
			return byObject.get(given);
		}
		const key = memoKey(choice);
		if (key === undefined) return resolve(choice, item);
		if (!byValue.has(key)) byValue.set(key, resolve(choice, item));
		return byValue.get(key);
	};
}

function memoKey(choice: ValidityChoice): string | undefined {
	if (choice.kind === 'serviceDefault') return choice.kind;
	const given = choice.kind === 'duration' ? choice.hours : choice.value;
	if (typeof given !== 'number' && typeof given !== 'string') return undefined;
	return `${choice.kind} ${typeof given} ${given}`;
}

/** A number, or a string of one, from a parameter an expression may have set; else the fallback. */
export function numberOr(value: unknown, fallback: number): number {
	const number =
		typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
	return Number.isFinite(number) ? number : fallback;
}

/** The Campaign Key option as text: a name or a number; anything else from an expression is refused. */
function campaignKeyOf(this: IExecuteFunctions, value: unknown, itemIndex: number): string {
	if (value === undefined || value === null) return '';
	if (typeof value === 'string' || typeof value === 'number') return String(value).trim();
	throw new NodeOperationError(this.getNode(), `The campaign is not text (got ${kindOf(value)})`, {
		description: 'Campaign must give a name, e.g. spring-sale; check its expression.',
		itemIndex,
	});
}

/** The message as text; a list or an object from an expression is refused in words. */
function messageOf(this: IExecuteFunctions, value: unknown, itemIndex: number): string {
	const text =
		typeof value === 'string'
			? value
			: typeof value === 'number' || typeof value === 'bigint'
				? `${value}`
				: undefined;
	if (text === undefined) {
		throw new NodeOperationError(this.getNode(), `The message is not text (got ${kindOf(value)})`, {
			description: 'Message must give the text to send; check its expression.',
			itemIndex,
		});
	}
	if (text.trim() === '') {
		throw new NodeOperationError(this.getNode(), 'The message is empty', {
			description: 'Write the text to send in Message.',
			itemIndex,
		});
	}
	return text;
}

function kindOf(value: unknown): string {
	if (value === null || value === undefined) return 'nothing';
	if (Array.isArray(value)) return 'a list';
	return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function validityOf(
	this: IExecuteFunctions,
	choice: ValidityChoice,
	now: Date,
	serviceTimeZone: string,
	item: number,
): Validity | undefined {
	try {
		return resolveValidity(choice, now, serviceTimeZone);
	} catch (error) {
		// resolveValidity throws only ValidityError, whose message is meant for the user.
		throw new NodeOperationError(this.getNode(), (error as ValidityError).message, {
			itemIndex: item,
		});
	}
}
