import type { ServerResponse } from 'node:http';

import { currentTime } from '../core/clock';
import type { SandboxRequest } from '../core/http';
import { HttpError, Router, jsonBody, send } from '../core/http';
import { routeHandler } from '../core/server';
import type { SandboxContext, SandboxModule } from '../core/server';

/**
 * A CRM stand-in for the recipes that log calls and transcripts "to the CRM": notes posted to
 * `/crm/v1/notes` are kept and listed, nothing more. In a real workflow this step is the CRM's
 * own node (HubSpot, Salesforce, Pipedrive…).
 */
export interface CrmNote {
	id: string;
	created: string;
	[field: string]: unknown;
}

export class CrmSandbox implements SandboxModule {
	readonly name = 'crm';
	readonly prefix = '/crm/v1';
	readonly admin = new Router();
	notes: CrmNote[] = [];
	private readonly api = new Router();

	constructor(_context: SandboxContext) {
		this.api.add('POST', '/notes', (req, res) => {
			const body = jsonBody<Record<string, unknown>>(req);
			if (!body || typeof body !== 'object' || Array.isArray(body) || typeof body.text !== 'string' || body.text.trim() === '') {
				throw new HttpError(400, { message: 'A note is a JSON object with a non-empty text' });
			}
			const note: CrmNote = { ...body, id: String(this.notes.length + 1), created: new Date(currentTime()).toISOString() };
			this.notes.push(note);
			send(res, 201, note);
		});
		this.api.add('GET', '/notes', (_req, res) => send(res, 200, { notes: this.notes }));
		this.admin.add('GET', '/notes', (_req, res) => send(res, 200, this.notes));
	}

	async handle(req: SandboxRequest, res: ServerResponse): Promise<void> {
		await routeHandler(this.api)(req, res);
	}

	info(baseUrl: string): Record<string, unknown> {
		return { baseUrl: `${baseUrl}${this.prefix}`, notes: this.notes.length };
	}

	reset(): void {
		this.notes = [];
	}

	close(): void {}
}

export const crmModule = (context: SandboxContext) => new CrmSandbox(context);
