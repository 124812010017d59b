import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

/**
 * The parameters of one operation for one input item, read by the executor from the
 * operation's fields. Values are whatever n8n resolved (strings, numbers, booleans,
 * collections); specs read them through the helpers in `params.ts`.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Params = Record<string, any>;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * A request relative to the credential's base URL. `{ACCOUNT}` in the path is filled by the
 * transport from the credential; every other `{name}` from `pathParams`, each value checked as one
 * path segment (see `pathSegmentIssue`) and named by its field: user values never go into `path`.
 */
export interface ApiRequest {
	method: HttpMethod;
	path: string;
	/** Values of the `{name}` placeholders of `path`, keyed by the parameter they come from. */
	pathParams?: Record<string, unknown>;
	qs?: IDataObject;
	/** Sent as JSON unless `form` is set. */
	body?: IDataObject | IDataObject[];
	form?: boolean;
	accept?: string;
	/**
	 * How to read the response body. Default `json`. `binary` reads it whole into a Buffer (files
	 * the node parses); `stream` hands it over unread, for files that go straight to binary data.
	 */
	responseType?: 'json' | 'text' | 'binary' | 'stream';
	/** Statuses that are answers rather than failures for this call (a report still running: 204). */
	okStatuses?: number[];
	/**
	 * A refusal that answers the question this call asks (an address check's verdict: not valid,
	 * with suggestions): given its JSON body, `true` returns it as the response instead of failing.
	 * Checked before retries.
	 */
	refusalAnswers?: (body: unknown) => boolean;
	/**
	 * Whether a 2xx answer without a body is an answer. Default: only where the contract promises no
	 * body (204); elsewhere an empty answer is an error, never an invented result.
	 */
	emptyBody?: 'allowed';
	/** `false` for the endpoints that take no authentication: the credential is not sent. */
	auth?: false;
	/** Headers besides Accept and Content-Type (a stream's Last-Event-ID). */
	headers?: Record<string, string>;
	/** An absolute URL the API gave us (a `nextPage` link). Re-based onto the credential's origin. */
	url?: string;
}

/** A path with its parameters, as the path helpers build them, to spread into a request. */
export interface ApiPath {
	path: string;
	pathParams?: Record<string, unknown>;
}

/** A response body handed over unread (`responseType: 'stream'`): a Node Readable n8n stores as binary data. */
export type BodyStream = Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0];

export interface ApiResponse<T = unknown> {
	status: number;
	headers: Record<string, string>;
	body: T;
	/** A credential secret the answer echoed was masked in it (JSON objects that held one say so themselves). */
	redacted?: true;
}

/** What the transport offers to specs: one authenticated request with the API's error handling. */
export interface ApiClient {
	request<T = unknown>(request: ApiRequest): Promise<ApiResponse<T>>;
	/**
	 * Opens a long-lived answer (a live event stream) through n8n's request helper. The connection
	 * must answer within the credential's timeout; after that only `signal` (or the caller's own
	 * idle timeout) ends it. A failure status comes back with its text (redacted), not thrown.
	 */
	stream(request: ApiRequest, signal: AbortSignal): Promise<StreamResponse>;
	/** Absolute URLs for paths of this API (the platform names resources by URI). No secrets. */
	environment(): Promise<RequestEnvironment>;
}

/** A live stream as opened: its body unread while `ok`, else the failure's text. */
export type StreamResponse =
	| {
			ok: true;
			status: number;
			headers: Record<string, string>;
			body: AsyncIterable<Uint8Array> & { destroy(error?: Error): void };
	  }
	| { ok: false; status: number; headers: Record<string, string>; text: string; message: string };

/** What a request builder may know besides the parameters: the API's own addresses and path variables. */
export interface RequestEnvironment {
	/** An absolute URL of this API; `pathParams` are checked as in requests. */
	absoluteUrl(path: string, pathParams?: Record<string, unknown>): string;
	/** Values filled into paths, such as the wholesale `ACCOUNT`. */
	variables: Record<string, string>;
	/** Text with every form of the credential's secrets masked (a secret pasted into a field is never echoed). */
	redact(text: string): string;
}

/** A problem with one parameter, found before anything is sent. */
export interface ValidationIssue {
	/** The parameter as the user sees it, or a path inside a structured value (`routing.default[1][0].timeout`). */
	field: string;
	/** What is wrong with the value. */
	problem: string;
	/** The rule the value must follow. */
	rule: string;
	/** Stable id of the rule in a validator's rule catalogue, for tests and docs. */
	ruleId?: string;
}

/** An output item that carries a file; the executor turns it into n8n binary data. */
export class FileOutput {
	constructor(
		readonly json: IDataObject,
		/** The file, whole or as the response stream; a stream's size is added to `json.fileSize` once stored. */
		readonly data: Buffer | BodyStream,
		readonly fileName: string,
		readonly mimeType: string,
	) {}
}

export type OutputItem = IDataObject | FileOutput;

/**
 * How a list is paged:
 * - `pbx`: the Hosted PBX list wrapper (`items`, `nextPage`), `pageSize` up to 200;
 * - `offset`: `start`/`limit` query parameters (wholesale inline CDRs);
 * - `client`: the API returns the whole list; Limit is applied to what came back.
 */
export type Paging = 'pbx' | 'offset' | 'client';

/** Everything a multi-call operation may use, inside the executor's loop and error handling. */
export interface OperationContext {
	client: ApiClient;
	environment: RequestEnvironment;
	node: IExecuteFunctions;
	itemIndex: number;
	sleep(ms: number): Promise<void>;
	/** Runs a list request with the operation's paging and Return All / Limit. */
	list(request: ApiRequest, limit: number | undefined): Promise<IDataObject[]>;
}

/**
 * The output choice of an operation that reads records (Get, Get Many): Simplified (the
 * default), Raw (the records as answered), or Selected Fields. The executor applies it to every
 * record the operation returned, after paging; files are never shaped.
 */
export interface OutputShape {
	/**
	 * The record as Simplified shows it: the fields a person or a model needs, plainly named and
	 * flat, without URIs or links. The executor puts the record's `id` first; leave it out here.
	 */
	simplify(record: IDataObject): IDataObject;
	/** The record's top-level fields from the contract, offered by Selected Fields (`id` always comes). */
	fields: readonly string[];
	/** Where the id of a record without an `id` is (a wholesale invoice's `InvoiceNumber`): a field's name, or a function. */
	id?: string | ((record: IDataObject) => unknown);
}

export interface OperationSpec {
	/** Operation value stored in workflows (`getAll`); never changes once released. */
	value: string;
	/** Display name in the operation dropdown (`Get Many`). */
	name: string;
	/**
	 * Action text n8n shows in the node panel (`Get many phone book entries`). As an AI Agent
	 * tool, "<action> in <node>" is the tool's default name and description: at most 64
	 * characters together, and it says when the operation is charged or changes live routing.
	 */
	action: string;
	/** One sentence a person or a model can act on: the dropdown's hint, and the tool description when set manually. */
	description: string;
	/** Parameters shown for this operation, without displayOptions for resource/operation. */
	fields?: INodeProperties[];
	/** Set for list operations: adds Return All / Limit and pages as named. */
	paging?: Paging;
	/** Checks parameters before anything is sent. Pure. */
	validate?: (params: Params, environment: RequestEnvironment) => ValidationIssue[];
	/** Builds the one request of a single-call operation. Pure. */
	request?: (params: Params, environment: RequestEnvironment) => ApiRequest;
	/** Turns the response into items. Default: a list becomes one item per element, an object one item. */
	output?: (response: ApiResponse, params: Params) => OutputItem[] | OutputItem;
	/** Offers Simplified / Raw / Selected Fields for the records the operation returns (see `OutputShape`). */
	shape?: OutputShape;
	/** For operations that are several calls (wait for a report, make a download link). Each use says why. */
	run?: (context: OperationContext, params: Params) => Promise<OutputItem[] | OutputItem>;
}

export interface ResourceSpec {
	value: string;
	name: string;
	description?: string;
	operations: OperationSpec[];
}
