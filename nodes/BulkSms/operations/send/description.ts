import type { INodeProperties } from 'n8n-workflow';

import { formatOption } from '../../../shared/descriptions';

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
		displayName:
			"Each number gets a text once per campaign. Every run you start is a campaign of its own, in production or from the editor, so each alert and each test reaches everyone. What was interrupted is resumed, never resent: a Retry continues the run it retries, and a run from the editor continues this node's last run if that run failed, was stopped or crashed with the same rows. When n8n runs Send only on the way to a later step, it sends nothing. To resume production runs by name, set Options → Campaign Key.",
		name: 'onceNotice',
		type: 'notice',
		default: '',
		displayOptions: showForSend,
	},
	{
		displayName: 'Numbers In Doubt',
		name: 'inDoubt',
		type: 'options',
		default: 'holdBack',
		description:
			'Numbers an earlier run of the campaign handed to the service without learning whether it took them (an error answer, a broken connection, a crash). Check them with your provider (its message log) before you resend.',
		options: [
			{
				name: 'Hold Back',
				value: 'holdBack',
				description: 'Send them nothing; each is listed as in doubt, with what its request met',
			},
			{
				name: 'Resend',
				value: 'resend',
				description: 'Send them the text again: anyone the service had taken gets it twice',
			},
		],
		displayOptions: showForSend,
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
				displayName: 'Campaign Key',
				name: 'campaign',
				type: 'string',
				default: '',
				placeholder: 'e.g. spring-sale, or {{ $json.campaign_id }}',
				description:
					'Runs that give the same key are one campaign, whatever started them: a number gets its text once across them, so running again resumes (and sends rows added at the end). A new key sends to everyone. Empty: every run you start is a campaign of its own.',
			},
			{
				displayName: 'Combine All Items Into One Batch',
				name: 'combineItems',
				type: 'boolean',
				default: false,
				description:
					'Whether to send one message to the destinations of every input item together (bulk from a sheet), instead of one batch per item. The message is taken from the first item. To write results back row by row, set Output to One Item per Destination.',
			},
			{
				displayName: 'Concurrent Requests',
				name: 'concurrency',
				type: 'number',
				default: 8,
				typeOptions: { minValue: 1, maxValue: 32 },
				description:
					'How many requests may be on their way at once. The output keeps the input order either way; 1 sends strictly one after the other.',
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
				displayName: 'Do Not Send To',
				name: 'doNotSendTo',
				type: 'string',
				typeOptions: { rows: 3 },
				default: '',
				placeholder: '447700900123, 447700900124',
				description:
					'Numbers that must never get this message (an opt-out list), written like Destinations or an expression that returns a list. They are left out and listed under skipped as opted out.',
			},
			{
				displayName: 'Group Items With the Same Message',
				name: 'groupSameMessage',
				type: 'boolean',
				default: false,
				description:
					'Whether items whose message and validity come out the same are sent together as one batch: fewer requests and one batch ID, each number still paired with its own item. To write results back row by row, set Output to One Item per Destination.',
			},
			{
				displayName: 'Invalid Numbers',
				name: 'onInvalid',
				type: 'options',
				default: 'auto',
				options: [
					{
						name: 'Skip Those From Rows, Fail for Those Typed Here',
						value: 'auto',
						description:
							'Numbers read from rows (an expression) are skipped and reported; a number typed in Destinations is a mistake in the workflow: the others are sent, then the run fails saying which',
					},
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
				displayName: 'Max Credits',
				name: 'maxCredits',
				type: 'number',
				default: 1000,
				typeOptions: { minValue: 0 },
				description:
					'Refuse the whole send, before any request, when the credits it is expected to cost (parts × numbers, all items together) are more than this',
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
			{
				displayName: 'Output',
				name: 'output',
				type: 'options',
				default: 'batch',
				options: [
					{
						name: 'One Item per Batch',
						value: 'batch',
						description: "The service's answer for each request, with its numbers",
					},
					{
						name: 'One Item per Destination',
						value: 'destination',
						description:
							'One row per number given, paired with the item it came from, to write results back row by row',
					},
				],
			},
			formatOption,
			{
				displayName: 'Resume Within (Hours)',
				name: 'resumeWithinHours',
				type: 'number',
				default: 12,
				typeOptions: { minValue: 1, maxValue: 168 },
				description:
					"How long Send's record keeps what an interrupted run or a Campaign Key sent: it forgets it this many hours after the last run that left something to resume. Within that time a Retry, the editor or the same key resumes; later, everyone is sent to again.",
			},
			{
				displayName: 'Send Each Number Once',
				name: 'sendEachNumberOnce',
				type: 'boolean',
				default: true,
				description:
					"Whether a number gets each text once per campaign: a row that repeats an earlier row's number and text is not sent, nor a number an earlier run of the campaign sent the same text (the row says so: sent before, or in doubt). Off: every row is sent as given, also again.",
			},
			{
				displayName: 'Sending Speed Limit',
				name: 'speedLimit',
				type: 'fixedCollection',
				default: {},
				placeholder: 'Add Speed Limit',
				description:
					"The most messages (one per number) sent per second, minute or hour over all requests in flight: a provider's or carrier's throughput limit. A long campaign can be stopped and run again to resume.",
				options: [
					{
						displayName: 'Limit',
						name: 'limit',
						values: [
							{
								displayName: 'Messages',
								name: 'messages',
								type: 'number',
								default: 100,
								typeOptions: { minValue: 1 },
								description: 'How many messages may go out per period',
							},
							{
								displayName: 'Per',
								name: 'per',
								type: 'options',
								default: 'minute',
								options: [
									{ name: 'Second', value: 'second' },
									{ name: 'Minute', value: 'minute' },
									{ name: 'Hour', value: 'hour' },
								],
							},
						],
					},
				],
			},
			{
				displayName: 'Smart Encoding',
				name: 'smartEncoding',
				type: 'boolean',
				default: false,
				description:
					'Whether to replace look-alike characters (curly quotes, long dashes, ellipsis, special spaces) with plain ones when that lets the whole message use GSM-7: fewer parts and credits. The output says what was replaced and what it saved.',
			},
		],
	},
];
