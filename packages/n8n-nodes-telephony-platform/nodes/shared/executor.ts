import type {
	IDataObject,
	IExecuteFunctions,
	INode,
	JsonObject,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeApiError, NodeHelpers, NodeOperationError } from 'n8n-workflow';

import { BINARY_PROPERTY, LIMIT, RETURN_ALL, findOperation, operationFields } from './describe';
import { asNodeError, validationError } from './errors';
import { parameterIssues } from './parameterChecks';
import { shapeItems } from './outputShape';
import { REDACTED_FIELD, markedItems } from './redaction';
import { isRecord } from './responseShape';
import type {
	ApiResponse,
	BodyStream,
	OperationContext,
	OperationSpec,
	OutputItem,
	Params,
	RequestEnvironment,
	ResourceSpec,
	ValidationIssue,
} from './operation';
import { FileOutput } from './operation';
import type { RecordExtractor } from './pagination';
import { collectList } from './pagination';
import { wait } from './timers';
import type { ApiDefinition } from './transport/client';
import { createClient } from './transport/client';

/** Marks a parameter n8n does not hold (hidden by its display options): it reads as undefined. */
const ABSENT = Symbol('absent');

/**
 * Reads the parameters an operation declares for one item. A hidden one is left out (it reads as
 * undefined); a key holding undefined is an expression that returned nothing, which the checks
 * judge. An option of a collection, or a value in a fixed collection's row, left undefined is
 * dropped: it stays unset, never becomes false or 0.
 */
export function readParams(
	context: IExecuteFunctions,
	fields: INodeProperties[],
	itemIndex: number,
): Params {
	const params: Params = {};
	const read = new Set<string>();
	for (const field of fields) {
		if (field.type === 'notice' || read.has(field.name)) continue;
		read.add(field.name);
		const value = context.getNodeParameter(field.name, itemIndex, ABSENT as never, {
			extractValue: field.type === 'resourceLocator',
		});
		if ((value as unknown) !== ABSENT) params[field.name] = withoutUnset(field, value);
	}
	return params;
}

function withoutUnset(field: INodeProperties, value: unknown): unknown {
	const defined = (entry: unknown) =>
		isRecord(entry)
			? Object.fromEntries(Object.entries(entry).filter(([, inner]) => inner !== undefined))
			: entry;
	if (field.type === 'collection') return defined(value);
	if (field.type !== 'fixedCollection' || !isRecord(value)) return value;
	return Object.fromEntries(
		Object.entries(value).map(([group, rows]) => [
			group,
			Array.isArray(rows) ? rows.map(defined) : defined(rows),
		]),
	);
}

/**
 * A list becomes one item per element, an object one item. An answer without a body (the
 * transport lets one through only where the contract promises none) says what happened: its status.
 */
export function defaultOutput(response: ApiResponse): OutputItem[] {
	const { body } = response;
	if (Array.isArray(body)) return body.map((entry) => asObject(entry));
	if (body === undefined || body === null || body === '')
		return [{ success: true, statusCode: response.status }];
	return [asObject(body)];
}

function asObject(value: unknown): IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value)
		? (value as IDataObject)
		: { value: value as IDataObject[keyof IDataObject] };
}

function asList(output: OutputItem[] | OutputItem): OutputItem[] {
	return Array.isArray(output) ? output : [output];
}

function listLimit(params: Params): number | undefined {
	return params[RETURN_ALL] ? undefined : Number(params[LIMIT] ?? 50);
}

function recordExtractor(spec: OperationSpec, params: Params): RecordExtractor | undefined {
	const { output } = spec;
	if (!output) return undefined;
	return (response: ApiResponse) =>
		asList(output(response, params)).map((item) => (item instanceof FileOutput ? item.json : item));
}

async function runOperation(
	spec: OperationSpec,
	context: OperationContext,
	params: Params,
): Promise<OutputItem[]> {
	if (spec.run) return asList(await spec.run(context, params));
	if (!spec.request)
		throw new NodeOperationError(context.node.getNode(), `Operation ${spec.value} has no request`);
	const request = spec.request(params, context.environment);
	if (spec.paging) return await context.list(request, listLimit(params));
	const response = await context.client.request(request);
	const items = spec.output ? asList(spec.output(response, params)) : defaultOutput(response);
	// A text answer has no objects to carry the mark (JSON ones do): its items carry it.
	if (!response.redacted || typeof response.body !== 'string') return items;
	return items.map((item) =>
		item instanceof FileOutput ? item : { ...item, [REDACTED_FIELD]: true },
	);
}

async function toExecutionData(
	context: IExecuteFunctions,
	item: OutputItem,
	params: Params,
	itemIndex: number,
): Promise<INodeExecutionData> {
	// A list element that is no object (null, 7, "x", [1]) is kept as `{ value }`: n8n needs an object as json (null crashes its engine).
	if (!(item instanceof FileOutput))
		return { json: asObject(item), pairedItem: { item: itemIndex } };
	const property = String(params[BINARY_PROPERTY] || 'data');
	// n8n 2.x reports the stored size (`bytes`); 1.x does not, so the streamed bytes are counted too.
	let streamed = 0;
	const stream = item.data as BodyStream & { map?: (fn: (chunk: Buffer) => Buffer) => BodyStream };
	const data =
		Buffer.isBuffer(item.data) || typeof stream.map !== 'function'
			? item.data
			: stream.map((chunk: Buffer) => ((streamed += chunk.length), chunk));
	const binary = await context.helpers.prepareBinaryData(data, item.fileName, item.mimeType);
	const json = Buffer.isBuffer(item.data)
		? item.json
		: { ...item.json, fileSize: binary.bytes ?? (streamed || item.json.fileSize) };
	return { json, binary: { [property]: binary }, pairedItem: { item: itemIndex } };
}

function errorJson(error: Error): IDataObject {
	const json: IDataObject = { error: error.message };
	const { description, context, httpCode } = error as NodeApiError;
	if (description) json.description = description;
	if (httpCode) json.httpCode = httpCode;
	if (context?.code) json.code = context.code as string;
	if (context?.field !== undefined) json.field = context.field as string;
	if (context?.issues) json.issues = context.issues as IDataObject[];
	return json;
}

/**
 * Every problem with the parameters, in the order the node shows the fields: each value against
 * its declaration, then the operation's own rules (which may assume well-typed values, so a field
 * already refused for its type is not checked again, and a rule that trips over a wrong type is skipped).
 */
function checkParameters(
	spec: OperationSpec,
	fields: INodeProperties[],
	params: Params,
	environment: RequestEnvironment,
	node: INode,
): ValidationIssue[] {
	// Two fields may share a name with different display conditions (a surname or a business name): judge the one shown.
	const shown = fields.filter((field) =>
		NodeHelpers.displayParameter(node.parameters, field, node, null, node.parameters),
	);
	const typeIssues = parameterIssues(shown, params, { undefinedRead: true });
	let ruleIssues: ValidationIssue[] = [];
	try {
		ruleIssues = spec.validate?.(params, environment) ?? [];
	} catch (error) {
		if (!typeIssues.length) throw asNodeError(node, error);
	}
	const refused = new Set(typeIssues.map((issue) => issue.field));
	const order = (issue: ValidationIssue) => {
		const at = fields.findIndex(
			(field) =>
				issue.field === field.displayName || issue.field.startsWith(`${field.displayName}.`),
		);
		return at < 0 ? fields.length : at;
	};
	return [...typeIssues, ...ruleIssues.filter((issue) => !refused.has(issue.field))].sort(
		(a, b) => order(a) - order(b),
	);
}

/**
 * The one executor of every action node: per item, read the operation's parameters,
 * validate before sending, run the request (with paging) or the multi-call `run`,
 * turn the answer into items with `pairedItem` and binary data, and honour Continue On Fail.
 */
export async function executeOperations(
	this: IExecuteFunctions,
	api: ApiDefinition,
	resources: ResourceSpec[],
): Promise<INodeExecutionData[][]> {
	const input = this.getInputData();
	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < input.length; itemIndex++) {
		try {
			const resource = this.getNodeParameter('resource', itemIndex) as string;
			const operation = this.getNodeParameter('operation', itemIndex) as string;
			const spec = findOperation(resources, resource, operation);
			if (!spec)
				throw new NodeOperationError(
					this.getNode(),
					`Unknown operation "${operation}" for resource "${resource}"`,
					{ itemIndex },
				);
			const fields = operationFields(spec);
			const params = readParams(this, fields, itemIndex);
			const labels = Object.fromEntries(fields.map((field) => [field.name, field.displayName]));
			const client = createClient(this, api, { itemIndex, labels });
			const environment = await client.environment();
			const issues = checkParameters(spec, fields, params, environment, this.getNode());
			if (issues.length) {
				const masked = issues.map((issue) => ({
					...issue,
					field: environment.redact(issue.field),
					problem: environment.redact(issue.problem),
				}));
				throw validationError(this.getNode(), masked, itemIndex);
			}

			const scope = { node: this.getNode(), itemIndex };
			const context: OperationContext = {
				client,
				environment,
				node: this,
				itemIndex,
				sleep: async (ms) => await wait(ms),
				list: async (request, limit) =>
					await collectList(
						client,
						spec.paging ?? 'client',
						request,
						limit,
						recordExtractor(spec, params),
						scope,
					),
			};
			for (const item of shapeItems(
				spec.shape,
				params,
				markedItems(await runOperation(spec, context, params)),
			)) {
				output.push(await toExecutionData(this, item, params, itemIndex));
			}
		} catch (error) {
			if (this.continueOnFail()) {
				output.push({ json: errorJson(error as Error), pairedItem: { item: itemIndex } });
				continue;
			}
			if (error instanceof NodeApiError || error instanceof NodeOperationError) {
				error.context.itemIndex ??= itemIndex;
			}
			// Both constructors hand back an error of their own class unchanged.
			if (error instanceof NodeApiError)
				throw new NodeApiError(this.getNode(), error as unknown as JsonObject);
			throw new NodeOperationError(this.getNode(), error as Error, { itemIndex });
		}
	}
	return [output];
}
