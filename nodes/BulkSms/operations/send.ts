import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { WireFormat } from '../../shared/domain/body';
import { creditsFor, measureMessage, type MessageMeasure } from '../../shared/domain/message';
import { parseDestinations, type RejectedDestination } from '../../shared/domain/msisdn';
import {
	resolveValidity,
	ValidityError,
	type Validity,
	type ValidityChoice,
} from '../../shared/domain/validity';
import { asNodeError, forEachGroup, formatOption, pairedWith } from '../../shared/items';
import { sendBatch, SendOutcomeUnknownError, serviceSettings } from '../../shared/transport';

const showForSend = { show: { operation: ['send'] } };

export const sendDescription: INodeProperties[] = [
	{
		displayName: 'Destinations',
		name: 'destinations',
		type: 'string',
		typeOptions: { rows: 3 },
		default: '',
		required: true,
		placeholder: '447700900123, 447700900124',
		description:
			'Mobile numbers in international format, separated by commas, semicolons, new lines or spaces, or an expression that returns a list. Written like +44 7700 900123 or 0044-7700-900123 is fine: spaces inside one number are kept together.',
		displayOptions: showForSend,
	},
	{
		displayName: 'Message',
		name: 'message',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		required: true,
		description:
			'Text of the SMS. Up to 160 GSM characters fit in one part; longer texts, or any character outside the GSM alphabet (emoji, most accents), use more parts and more credits.',
		displayOptions: showForSend,
	},
	{
		displayName: 'Validity',
		name: 'validity',
		type: 'options',
		default: 'serviceDefault',
		description: 'How long the network keeps trying to deliver the message',
		options: [
			{ name: 'Service Default (7 Days)', value: 'serviceDefault' },
			{ name: 'For a Duration', value: 'duration' },
			{ name: 'Until a Date and Time', value: 'until' },
		],
		displayOptions: showForSend,
	},
	{
		displayName: 'Valid For (Hours)',
		name: 'validityHours',
		type: 'number',
		default: 24,
		typeOptions: { minValue: 0.1, numberPrecision: 2 },
		description: 'Hours from the moment of sending; networks cap it at their own maximum',
		displayOptions: { show: { operation: ['send'], validity: ['duration'] } },
	},
	{
		displayName: 'Valid Until',
		name: 'validityUntil',
		type: 'dateTime',
		default: '',
		description:
			"Date and time after which the message expires; without an offset it is read in the workflow's time zone",
		displayOptions: { show: { operation: ['send'], validity: ['until'] } },
	},
	{
		displayName: 'Options',
		name: 'sendOptions',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: showForSend,
		options: [
			{
				displayName: 'Combine All Items Into One Batch',
				name: 'combineItems',
				type: 'boolean',
				default: false,
				description:
					'Whether to send one message to the destinations of every input item together (bulk from a sheet), instead of one batch per item. The message is taken from the first item.',
			},
			{
				displayName: 'Default Country Code',
				name: 'defaultCountryCode',
				type: 'string',
				default: '',
				placeholder: '44',
				description:
					'Country calling code for numbers written in national format (with a leading 0)',
			},
			{
				displayName: 'Invalid Numbers',
				name: 'onInvalid',
				type: 'options',
				default: 'skip',
				options: [
					{
						name: 'Skip and Report',
						value: 'skip',
						description: 'Send to the valid numbers; list the others under skipped',
					},
					{
						name: 'Fail the Item',
						value: 'fail',
						description: 'Send nothing if any number is invalid',
					},
				],
			},
			{
				displayName: 'Max Destinations per Request',
				name: 'maxPerRequest',
				type: 'number',
				default: 1000,
				typeOptions: { minValue: 1 },
				description:
					'Longer lists are split into several requests; each becomes its own batch in the output',
			},
			formatOption,
		],
	},
];

interface SendPlan {
	destinations: string[];
	/** Input item of each destination, for pairedItem. */
	sources: Map<string, number>;
	skipped: Array<RejectedDestination & { item: number }>;
	duplicates: number;
	message: string;
	measure: MessageMeasure;
	validity: Validity | undefined;
	maxPerRequest: number;
	format: WireFormat;
}

/**
 * One batch per input item, or one for all of them; a batch larger than the cap goes out in
 * chunks. Every item is checked before anything is sent, so a bad item cannot stop a run
 * half-sent, and a failure names every batch the run had already sent.
 */
export async function executeSend(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	const items = this.getInputData();
	const combine = this.getNodeParameter('sendOptions.combineItems', 0, false) as boolean;
	const groups = combine ? [items.map((_, index) => index)] : items.map((_, index) => [index]);
	const plans = await planAll.call(this, groups);
	return await forEachGroup(this, groups, async (group, sentBefore) => {
		const plan = plans.get(group[0]);
		if (plan instanceof Error) throw plan;
		return await sendInChunks.call(this, plan as SendPlan, group, sentBefore);
	});
}

/** Plans every group; a failure stops the node, or under Continue On Fail becomes that group's error item. */
async function planAll(
	this: IExecuteFunctions,
	groups: number[][],
): Promise<Map<number, SendPlan | Error>> {
	const plans = new Map<number, SendPlan | Error>();
	for (const group of groups) {
		try {
			plans.set(group[0], await planSend.call(this, group));
		} catch (error) {
			const nodeError = asNodeError(this, error, group[0]);
			if (!this.continueOnFail()) throw nodeError;
			plans.set(group[0], nodeError);
		}
	}
	return plans;
}

async function planSend(this: IExecuteFunctions, group: number[]): Promise<SendPlan> {
	const first = group[0];
	const option = <T>(name: string, fallback: T) =>
		this.getNodeParameter(`sendOptions.${name}`, first, fallback) as T;
	const { timeZone } = await serviceSettings.call(this, first);
	const message = messageOf.call(this, group);
	const plan: SendPlan = {
		destinations: [],
		sources: new Map(),
		skipped: [],
		duplicates: 0,
		message,
		measure: measureMessage(message),
		validity: validityOf.call(this, first, timeZone),
		maxPerRequest: Math.max(1, Math.floor(option('maxPerRequest', 1000))),
		format: option<WireFormat>('format', 'json'),
	};
	const defaultCountryCode = option<string>('defaultCountryCode', '');
	for (const index of group) addDestinations.call(this, plan, index, defaultCountryCode);
	checkDestinations.call(this, plan, option('onInvalid', 'skip'), first);
	return plan;
}

function messageOf(this: IExecuteFunctions, group: number[]): string {
	const message = String(this.getNodeParameter('message', group[0], ''));
	if (message.trim() === '') {
		throw new NodeOperationError(this.getNode(), 'The message is empty', {
			description: 'Write the text to send in Message.',
			itemIndex: group[0],
		});
	}
	const differing = group.find(
		(index) => String(this.getNodeParameter('message', index, '')) !== message,
	);
	if (differing !== undefined) {
		throw new NodeOperationError(
			this.getNode(),
			`Item ${differing} has a different message than item ${group[0]}`,
			{
				description:
					'A combined batch sends one message. Use the same Message for all items, or turn off Combine All Items Into One Batch.',
				itemIndex: differing,
			},
		);
	}
	return message;
}

function validityOf(
	this: IExecuteFunctions,
	index: number,
	serviceTimeZone: string,
): Validity | undefined {
	const kind = this.getNodeParameter('validity', index, 'serviceDefault') as ValidityChoice['kind'];
	const choice: ValidityChoice =
		kind === 'duration'
			? { kind, hours: Number(this.getNodeParameter('validityHours', index, 24)) }
			: kind === 'until'
				? {
						kind,
						value: String(this.getNodeParameter('validityUntil', index, '')),
						inputTimeZone: this.getTimezone(),
					}
				: { kind: 'serviceDefault' };
	try {
		return resolveValidity(choice, new Date(), serviceTimeZone);
	} catch (error) {
		throw new NodeOperationError(this.getNode(), (error as ValidityError).message, {
			itemIndex: index,
		});
	}
}

function addDestinations(
	this: IExecuteFunctions,
	plan: SendPlan,
	index: number,
	defaultCountryCode: string,
): void {
	const raw = this.getNodeParameter('destinations', index, '') as unknown;
	const input = Array.isArray(raw) ? raw : String(raw ?? '');
	const parsed = parseDestinations(input, { defaultCountryCode });
	plan.duplicates += parsed.duplicates;
	plan.skipped.push(...parsed.rejected.map((rejected) => ({ ...rejected, item: index })));
	for (const destination of parsed.destinations) {
		if (plan.sources.has(destination)) {
			plan.duplicates++;
			continue;
		}
		plan.sources.set(destination, index);
		plan.destinations.push(destination);
	}
}

function checkDestinations(
	this: IExecuteFunctions,
	plan: SendPlan,
	onInvalid: string,
	itemIndex: number,
): void {
	const reasons = plan.skipped
		.slice(0, 5)
		.map((skipped) => `"${skipped.input}": ${skipped.reason}`)
		.join('; ');
	if (plan.skipped.length > 0 && onInvalid === 'fail') {
		throw new NodeOperationError(
			this.getNode(),
			`${plan.skipped.length} destination(s) are not valid mobile numbers; nothing was sent`,
			{
				description: `${reasons}. Correct them, or set Invalid Numbers to Skip and Report.`,
				itemIndex,
			},
		);
	}
	if (plan.destinations.length === 0) {
		throw new NodeOperationError(this.getNode(), 'No valid destination to send to', {
			description: reasons
				? `${reasons}.`
				: 'Destinations is empty: give numbers in international format, e.g. 447700900123.',
			itemIndex,
		});
	}
}

async function sendInChunks(
	this: IExecuteFunctions,
	plan: SendPlan,
	group: number[],
	sentBefore: readonly INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const chunks = chunk(plan.destinations, plan.maxPerRequest);
	const output: INodeExecutionData[] = [];
	for (const [index, destinations] of chunks.entries()) {
		const pairedItem = pairedWith(
			destinations.map((destination) => plan.sources.get(destination) ?? group[0]),
		);
		const { json, failure } = await sendChunk.call(
			this,
			plan,
			destinations,
			index,
			chunks.length,
			group[0],
		);
		if (failure) {
			const notSent = plan.destinations.slice((index + 1) * plan.maxPerRequest);
			explainChunkFailure(failure, json, [...sentBefore, ...output], notSent.length);
			if (!this.continueOnFail()) throw failure;
			// n8n's Continue On Fail items carry the message in `error`; the service's own
			// `error` text moves to `service_error` so that it is not lost.
			const { error: serviceError, ...fields } = json;
			output.push({
				json: {
					...fields,
					...(serviceError === undefined ? {} : { service_error: serviceError }),
					not_sent: notSent,
					error: failure.message,
					description: failure.description,
				},
				pairedItem,
			});
			return output;
		}
		output.push({ json, pairedItem });
	}
	return output;
}

type SendOutcome = 'accepted' | 'not accepted' | 'not sent' | 'unknown';

/** One request; a failure is returned, not thrown, so the batches sent before it can be reported. */
async function sendChunk(
	this: IExecuteFunctions,
	plan: SendPlan,
	destinations: string[],
	index: number,
	chunks: number,
	itemIndex: number,
): Promise<{ json: IDataObject; failure?: NodeApiError | NodeOperationError }> {
	try {
		const response = await sendBatch.call(
			this,
			{ destinations, message: plan.message, validity_period: plan.validity?.validity_period },
			{ format: plan.format, itemIndex },
		);
		const json = batchResult(plan, destinations, { ...response }, index, chunks);
		if (response.accepted) return { json: { ...json, send_outcome: 'accepted' } };
		const failure = new NodeApiError(
			this.getNode(),
			{ accepted: false },
			{
				message: `The service did not accept the batch: ${response.error || 'no reason given'}`,
				itemIndex,
			},
		);
		return { json: { ...json, send_outcome: 'not accepted' }, failure };
	} catch (error) {
		const send_outcome: SendOutcome =
			error instanceof SendOutcomeUnknownError ? 'unknown' : 'not sent';
		const json = {
			requested: destinations.length,
			destinations,
			send_outcome,
			chunk: index + 1,
			chunks,
		};
		return { json, failure: asNodeError(this, error, itemIndex) };
	}
}

/** Says what became of every destination: sent before, this request, and never sent after. */
function explainChunkFailure(
	failure: NodeApiError | NodeOperationError,
	json: IDataObject,
	sentBefore: readonly INodeExecutionData[],
	notSentAfter: number,
): void {
	const here = `this request's ${String(json.requested)} destination(s)`;
	const accepted = sentBefore
		.filter((item) => item.json.send_outcome === 'accepted')
		.map((item) => item.json.batch_id)
		.join(', ');
	failure.description = [
		failure.description,
		json.send_outcome === 'unknown'
			? `The outcome for ${here} is unknown: ${String(json.destinations)}.`
			: `${here[0].toUpperCase()}${here.slice(1)} were not sent.`,
		accepted ? `Batches accepted before it: ${accepted}.` : '',
		notSentAfter > 0 ? `${notSentAfter} later destination(s) were not sent.` : '',
	]
		.filter(Boolean)
		.join(' ');
}

function batchResult(
	plan: SendPlan,
	destinations: string[],
	response: IDataObject,
	index: number,
	chunks: number,
): IDataObject {
	const first = index === 0;
	return {
		...response,
		requested: destinations.length,
		dropped_by_service: response.accepted ? destinations.length - Number(response.batch_size) : 0,
		destinations,
		// What was skipped belongs to the whole send, so it is reported once.
		skipped: first ? plan.skipped : [],
		duplicates_removed: first ? plan.duplicates : 0,
		encoding: plan.measure.encoding,
		characters: plan.measure.characters,
		parts: plan.measure.parts,
		credits_expected: creditsFor(plan.measure, destinations.length),
		validity_period: plan.validity?.validity_period ?? null,
		valid_until: plan.validity?.valid_until ?? null,
		chunk: index + 1,
		chunks,
	};
}

function chunk<T>(list: readonly T[], size: number): T[][] {
	const chunks: T[][] = [];
	for (let start = 0; start < list.length; start += size)
		chunks.push(list.slice(start, start + size));
	return chunks;
}
