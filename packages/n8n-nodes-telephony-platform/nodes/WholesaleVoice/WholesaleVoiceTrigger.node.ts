import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { appendAll } from '../shared/lists';
import { clock } from '../shared/timers';
import { headerValue } from '../shared/params';
import { triggerOf } from '../shared/triggers/lifecycle';
import {
	DEFAULT_REMEMBER_IDS,
	DEFAULT_REMEMBER_MINUTES,
	MAX_REMEMBER_IDS,
	forgetUnlessAcknowledged,
} from '../shared/triggers/recentIds';
import type { RecentIds } from '../shared/triggers/recentIds';
import { wholesaleVoiceCredentialTest } from '../shared/transport/credentialTest';
import { collectReadyReport } from './trigger/reportReady';
import {
	decodeBytes,
	isMultipart,
	parseBody,
	supportedDeliveryType,
	parseParsedBody,
} from './trigger/deliveryBody';
import type { DeliveryDocument } from './trigger/deliveryItems';
import { deliveryEvents } from './trigger/deliveryItems';
import { ALL_EVENTS, REPORT_APP, UNPARSEABLE_APP } from './trigger/events';
import { triggerProperties } from './trigger/fields';
import type { CallerSettings, SecretLocation, SourceNetworks } from './trigger/security';
import {
	DEFAULT_SECRET_HEADER,
	DEFAULT_SECRET_QUERY_PARAMETER,
	checkCaller,
	settingsProblems,
} from './trigger/security';

/** The raw request as n8n hands it over: the body bytes it read, the address it computed. */
interface DeliveryRequest {
	rawBody?: Buffer;
	body?: unknown;
	ip?: string;
	socket?: { remoteAddress?: string };
}

type TriggerContext = IWebhookFunctions | IHookFunctions;

function callerSettings(context: TriggerContext): CallerSettings {
	// Only the parameters in use are read: each read costs microseconds on every delivery.
	const secretLocation = context.getNodeParameter('secretLocation', 'none') as SecretLocation;
	const sourceNetworks = context.getNodeParameter('sourceNetworks', 'platform') as SourceNetworks;
	return {
		sourceNetworks,
		customNetworks:
			sourceNetworks === 'custom'
				? String(context.getNodeParameter('customNetworks', '') ?? '')
				: undefined,
		secretLocation,
		secretName:
			secretLocation === 'query'
				? String(
						context.getNodeParameter('queryParameterName', DEFAULT_SECRET_QUERY_PARAMETER) ?? '',
					).trim()
				: secretLocation === 'header'
					? String(context.getNodeParameter('headerName', DEFAULT_SECRET_HEADER) ?? '').trim()
					: undefined,
		secret:
			secretLocation === 'none' ? undefined : String(context.getNodeParameter('secret', '') ?? ''),
	};
}

function chosenEvents(context: TriggerContext): string[] {
	const value = context.getNodeParameter('events', ALL_EVENTS) as string[] | string;
	return Array.isArray(value) ? value : [value];
}

function options(context: TriggerContext): IDataObject {
	return (context.getNodeParameter('options', {}) ?? {}) as IDataObject;
}

function warn(context: IWebhookFunctions, kind: string, message: string): void {
	const { write, held } = triggerOf(context).warningDue(kind);
	if (!write) return;
	context.logger.warn(
		`${message}${held ? ` (${held} more like it in the last minute were not logged)` : ''}`,
		{
			workflowId: context.getWorkflow().id ?? '',
			nodeName: context.getNode().name,
		},
	);
}

/** Answers the platform now, before the execution runs: it must never wait on the workflow. */
function answer(context: IWebhookFunctions, status: number, body: IDataObject): void {
	context.getResponseObject().status(status).json(body);
}

/** A Content-Type the platform never sends: answered 415. */
function refuseUnsupportedType(
	context: IWebhookFunctions,
	contentType: string,
	address: string | undefined,
): IWebhookResponseData {
	warn(
		context,
		'unsupported-type',
		`Wholesale Voice Trigger answered 415 to a delivery with Content-Type ${contentType.split(';')[0]} from ${address ?? 'an unknown address'}: the platform sends JSON or a form`,
	);
	answer(context, 415, {
		error: `unsupported content type ${contentType.split(';')[0]}; send JSON or a form (application/x-www-form-urlencoded or multipart/form-data)`,
	});
	return { noWebhookResponse: true };
}

/** A delivery that could not be read: answered 400 and, when the user asks for such items, emitted as one. */
function refuseUnreadable(
	context: IWebhookFunctions,
	request: DeliveryRequest,
	reason: string,
	delivery: { contentType: string; address?: string; receivedAt: Date; emit: boolean },
): IWebhookResponseData {
	const raw = request.rawBody;
	const size = raw?.length ?? 0;
	warn(
		context,
		'unparseable',
		`Wholesale Voice Trigger answered 400 to a delivery it could not read: ${reason} (Content-Type ${delivery.contentType || 'none'}, ${size} bytes, from ${delivery.address ?? 'an unknown address'})`,
	);
	answer(context, 400, { error: reason });
	if (!delivery.emit) return { noWebhookResponse: true };
	const body = raw?.length
		? decodeBytes(raw)
		: typeof request.body === 'string'
			? request.body
			: JSON.stringify(request.body ?? null);
	const item: IDataObject = {
		app: UNPARSEABLE_APP,
		error: reason,
		contentType: delivery.contentType,
		size,
		receivedAt: delivery.receivedAt.toISOString(),
		body: body.slice(0, 65_536),
	};
	return { noWebhookResponse: true, workflowData: [[{ json: item }]] };
}

/** The ids of the messages emitted lately, when Drop Duplicates is on. */
function recentMessages(context: IWebhookFunctions, opts: IDataObject): RecentIds | undefined {
	if (!context.getNodeParameter('dropDuplicates', true)) return undefined;
	return triggerOf(context).recentIds(
		context.getMode(),
		Math.min(MAX_REMEMBER_IDS, Math.max(1, Number(opts.rememberIds ?? DEFAULT_REMEMBER_IDS))),
		Math.max(1, Number(opts.rememberMinutes ?? DEFAULT_REMEMBER_MINUTES)) * 60_000,
	);
}

/** The items of the documents of a chosen event not emitted before, and the dedupe keys they took. */
function newChosenItems(
	documents: DeliveryDocument[],
	chosen: Set<string>,
	memory: RecentIds | undefined,
): { items: IDataObject[]; taken: string[] } {
	const items: IDataObject[] = [];
	const taken: string[] = [];
	for (const document of documents) {
		// Another app, or a retry of a message already emitted: acknowledged, nothing started.
		if (!chosen.has(document.category)) continue;
		if (memory && document.dedupeKey !== undefined) {
			if (!memory.firstSeen(document.dedupeKey)) continue;
			taken.push(document.dedupeKey);
		}
		appendAll(items, document.items);
	}
	return { items, taken };
}

export class WholesaleVoiceTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Wholesale Voice Trigger',
		name: 'wholesaleVoiceTrigger',
		icon: { light: 'file:wholesaleVoice.svg', dark: 'file:wholesaleVoice.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: `={{($parameter["events"] || []).length === ${ALL_EVENTS.length} ? "all events" : ($parameter["events"] || []).join(", ")}}`,
		description:
			'Starts a workflow on wholesale platform events: calls, CDRs, blocked calls, porting, rate updates, report-ready callbacks, SMS delivery reports and inbound SMS',
		defaults: { name: 'Wholesale Voice Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		// Only to collect a ready report; the webhook itself needs no credential.
		credentials: [
			{
				name: 'wholesaleVoiceApi',
				required: true,
				testedBy: 'wholesaleVoiceApiTest',
				displayOptions: { show: { collectReport: [true] } },
			},
		],
		// responseData: what n8n answers when it answers (without it n8n sends the text
		// "firstEntryJson"): the same `{}` the trigger sends when it answers itself.
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				responseData: '={{ {} }}',
				path: 'wholesale-voice',
			},
		],
		properties: triggerProperties,
	};

	methods = { credentialTest: wholesaleVoiceCredentialTest };

	/** No registration at the platform (the URL is entered in its portal): activation only checks the settings. */
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return false;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				const problems = settingsProblems(callerSettings(this));
				if (chosenEvents(this).length === 0) problems.push('Events: choose at least one event');
				if (problems.length) {
					throw new NodeOperationError(this.getNode(), problems[0], {
						description: problems.slice(1).join('; ') || undefined,
					});
				}
				if (
					chosenEvents(this).includes(REPORT_APP) &&
					this.getNodeParameter('collectReport', false)
				) {
					try {
						await this.getCredentials('wholesaleVoiceApi');
					} catch {
						throw new NodeOperationError(
							this.getNode(),
							'Collect the Report needs a Wholesale Voice API credential',
							{
								description:
									'Choose the credential of the account whose reports call back here, or turn Collect the Report off.',
							},
						);
					}
				}
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const request = this.getRequestObject() as unknown as DeliveryRequest;
		const headers = this.getHeaderData() as IDataObject;
		const query = { ...((this.getQueryData() ?? {}) as IDataObject) };
		const settings = callerSettings(this);
		const address = request.ip ?? request.socket?.remoteAddress;

		const check = checkCaller(settings, { address, query, headers });
		if (!check.allowed) {
			warn(
				this,
				`refused-${check.status}`,
				`Wholesale Voice Trigger refused a delivery with ${check.status}: ${check.reason}`,
			);
			answer(this, check.status, { error: check.status === 401 ? 'unauthorised' : 'forbidden' });
			return { noWebhookResponse: true };
		}
		if (settings.secretLocation === 'query' && settings.secretName)
			delete query[settings.secretName];

		const contentType = String(headerValue(headers, 'content-type') ?? '');
		if (!supportedDeliveryType(contentType))
			return refuseUnsupportedType(this, contentType, address);
		const raw = request.rawBody;
		const parsed =
			raw?.length && !isMultipart(contentType)
				? parseBody(raw, contentType)
				: parseParsedBody(request.body, contentType);
		const opts = options(this);
		const receivedAt = new Date(clock.now());
		const events = parsed.ok
			? deliveryEvents(parsed.documents, {
					splitCalls: opts.splitCalls === true,
					receivedAt,
					query,
				})
			: parsed;
		if (!events.ok) {
			return refuseUnreadable(this, request, events.reason, {
				contentType,
				address,
				receivedAt,
				emit: opts.unparseable === 'emit',
			});
		}

		const chosen = new Set(chosenEvents(this));
		const memory = recentMessages(this, opts);
		const { items, taken } = newChosenItems(events.documents, chosen, memory);
		if (items.length === 0) {
			answer(this, 200, {});
			return { noWebhookResponse: true };
		}
		// n8n answers (200 {}) itself: n8n 2.x once it has stored the execution (queued it, in queue
		// mode), so a delivery acknowledged always has its run, and one n8n could not store (its
		// database unreachable under load) is answered 500 and retried by the platform. Its ids are
		// then given back, or the retry would be dropped as a repeat. (n8n 1.x answers first.)
		if (memory) forgetUnlessAcknowledged(this.getResponseObject(), memory, taken);
		return { webhookResponse: {}, workflowData: [items.map((json) => ({ json }))] };
	}

	/**
	 * n8n runs a trigger's `execute` on the items its webhook emitted, as the execution's first
	 * step: everything passes through, except a report-ready handle when Collect the Report is on,
	 * which becomes the report's rows (or the handle with the reason it could not be collected).
	 */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const out: INodeExecutionData[] = [];
		for (let i = 0; i < items.length; i++) {
			const item = items[i];
			const collect =
				item.json.app === REPORT_APP &&
				item.json.collected === undefined &&
				this.getNodeParameter('collectReport', i, false) === true;
			if (!collect) {
				out.push({ ...item, pairedItem: { item: i } });
				continue;
			}
			out.push(
				...(await collectReadyReport(this, item.json, i, {
					includeRawFile: this.getNodeParameter('includeRawFile', i, false) === true,
					binaryPropertyName: String(
						this.getNodeParameter('binaryPropertyName', i, 'data') || 'data',
					),
				})),
			);
		}
		return [out];
	}
}
