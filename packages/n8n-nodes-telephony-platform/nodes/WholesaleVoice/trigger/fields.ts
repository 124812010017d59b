import type { INodeProperties } from 'n8n-workflow';

import { binaryPropertyField } from '../../shared/describe';
import {
	DEFAULT_REMEMBER_IDS,
	DEFAULT_REMEMBER_MINUTES,
	MAX_REMEMBER_IDS,
} from '../../shared/triggers/recentIds';
import {
	booleanField,
	numericField,
	optionsField,
	shownFor,
	textField,
	triggerOptions,
} from '../../shared/fields';
import { ALL_EVENTS, EVENT_CHOICES, REPORT_APP, UNPARSEABLE_APP } from './events';
import {
	DEFAULT_SECRET_HEADER,
	DEFAULT_SECRET_QUERY_PARAMETER,
	PLATFORM_NETWORKS,
} from './security';

const reports = { events: [REPORT_APP] };

/** The trigger's parameters: the events, report collection, duplicates, and who may deliver. */
export const triggerProperties: INodeProperties[] = [
	{
		displayName:
			"Enter this node's Production URL in the portal's webhook settings (one default URL for every app, or per app). The same URL takes a report's Callback URL, an SMS's report URL (with the message ID and status placeholders in its query, if you like) and a number's inbound SMS endpoint (mode http_json). Add the secret to the URL if you set a query-parameter secret.",
		name: 'setupNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		options: EVENT_CHOICES,
		default: [...ALL_EVENTS],
		description:
			'The events that start the workflow. Other deliveries are answered 200 and start nothing.',
	},
	booleanField(
		'Collect the Report',
		'collectReport',
		'Whether to fetch a report as soon as it is ready and output its rows (needs the Wholesale Voice API credential). The file can be fetched only once; if collection fails, the handle is output with the reason.',
		{ displayOptions: { show: reports } },
	),
	booleanField(
		'Include Raw File',
		'includeRawFile',
		'Whether to also output the report file as binary data (on the first item)',
		{ displayOptions: { show: { ...reports, collectReport: [true] } } },
	),
	{
		...binaryPropertyField,
		displayOptions: { show: { ...reports, collectReport: [true], includeRawFile: [true] } },
	},
	booleanField(
		'Drop Duplicates',
		'dropDuplicates',
		'Whether to drop a delivery whose ID was emitted recently (the platform repeats the ID when it retries). Remembered in memory: not across restarts, and per webhook process in queue mode.',
		{ default: true },
	),
	optionsField(
		'Allowed Sources',
		'sourceNetworks',
		'platform',
		[
			[
				"The Platform's Networks",
				'platform',
				`Only the five networks the spec lists: ${PLATFORM_NETWORKS.join(', ')}`,
			],
			['Any Source', 'any', 'No address check: use a secret, or a proxy that filters'],
			['Custom Networks', 'custom', 'Only the networks listed here'],
		],
		{
			description:
				'Which client addresses may deliver. The address is the one n8n computes: behind a reverse proxy, set N8N_PROXY_HOPS so that n8n reads it from X-Forwarded-For; the trigger never trusts that header by itself.',
		},
	),
	textField(
		'Allowed Networks',
		'customNetworks',
		'Addresses or CIDR networks (IPv4 or IPv6), separated by commas or new lines',
		{
			default: PLATFORM_NETWORKS.join(', '),
			required: true,
			placeholder: 'e.g. 178.22.139.84/31, 203.0.113.0/24',
			...shownFor('sourceNetworks', 'custom'),
		},
	),
	optionsField(
		'Shared Secret',
		'secretLocation',
		'none',
		[
			['None', 'none', 'The unguessable URL and the source networks only'],
			['Query Parameter', 'query', 'Put ?token=SECRET on the URL entered in the portal'],
			[
				'Header',
				'header',
				'A header set by a proxy in front of n8n (the platform sends no custom headers)',
			],
		],
		{ description: 'A secret every delivery must carry, compared in constant time' },
	),
	textField('Query Parameter Name', 'queryParameterName', undefined, {
		default: DEFAULT_SECRET_QUERY_PARAMETER,
		...shownFor('secretLocation', 'query'),
	}),
	textField('Header Name', 'headerName', undefined, {
		default: DEFAULT_SECRET_HEADER,
		...shownFor('secretLocation', 'header'),
	}),
	textField('Secret', 'secret', 'A long random value, e.g. from openssl rand -hex 32', {
		typeOptions: { password: true },
		required: true,
		...shownFor('secretLocation', 'query', 'header'),
	}),
	triggerOptions([
		booleanField(
			'Calls in Progress: One Item per Call',
			'splitCalls',
			'Whether a calls-in-progress summary gives one item per call (per destination in the summary form) with the account, time and currency, instead of one item with the lists',
		),
		numericField(
			'Remember IDs (Count)',
			'rememberIds',
			DEFAULT_REMEMBER_IDS,
			{ minValue: 1, maxValue: MAX_REMEMBER_IDS },
			{ description: 'How many recent IDs Drop Duplicates keeps; the oldest are forgotten first' },
		),
		numericField(
			'Remember IDs For (Minutes)',
			'rememberMinutes',
			DEFAULT_REMEMBER_MINUTES,
			{ minValue: 1 },
			{ description: 'How long Drop Duplicates keeps an ID' },
		),
		optionsField(
			'Unparseable Bodies',
			'unparseable',
			'log',
			[
				['Answer 400 and Log a Warning', 'log'],
				[
					'Answer 400, Log, and Start the Workflow',
					'emit',
					`Also emit an item with app "${UNPARSEABLE_APP}", the reason and the body as received`,
				],
			],
			{
				description:
					'What to do with a delivery whose body cannot be read (it is never dropped silently)',
			},
		),
	]),
];
