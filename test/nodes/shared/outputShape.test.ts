import type { IDataObject } from 'n8n-workflow';

import { conversationIntelligenceResources } from '../../../packages/n8n-nodes-telephony-platform/nodes/ConversationIntelligence/ConversationIntelligence.node';
import { hostedPbxResources } from '../../../packages/n8n-nodes-telephony-platform/nodes/HostedPbx/HostedPbx.node';
import { VoiceAgent, voiceAgentResources } from '../../../packages/n8n-nodes-telephony-platform/nodes/VoiceAgent/VoiceAgent.node';
import { wholesaleVoiceResources } from '../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/WholesaleVoice.node';
import { describeResources, operationFields } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/describe';
import type { OperationSpec, OutputShape, ResourceSpec } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/operation';
import { FileOutput } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/operation';
import { OUTPUT, SELECTED_FIELDS, flat, plain, shapeFields, shapeItems, shapeOf, utcTime, withKnown } from '../../../packages/n8n-nodes-telephony-platform/nodes/shared/outputShape';

const shape: OutputShape = { fields: ['type', 'name', 'uri'], simplify: (r) => plain({ name: r.name, label: r.label }) };
const record = { id: '7', type: 'thing', uri: 'https://x/things/7', name: 'Seven', label: '' };
const reads: OperationSpec = { value: 'getAll', name: 'Get Many', action: 'Get many things', description: 'List things', paging: 'pbx', shape };

describe('the output choice in the node description', () => {
	test('Output (Simplified by default, Raw, Selected Fields) and Fields (only for Selected Fields, options sorted) follow Return All / Limit', () => {
		const fields = operationFields(reads);
		expect(fields.map((f) => f.name)).toEqual(['returnAll', 'limit', OUTPUT, SELECTED_FIELDS]);
		const [output, chosen] = shapeFields(reads);
		expect(output).toMatchObject({ displayName: 'Output', type: 'options', default: 'simple' });
		expect(output.options?.map((o) => ('value' in o ? [o.name, o.value] : []))).toEqual([
			['Simplified', 'simple'],
			['Raw', 'raw'],
			['Selected Fields', 'fields'],
		]);
		expect(chosen).toMatchObject({ displayName: 'Fields', type: 'multiOptions', default: [], displayOptions: { show: { output: ['fields'] } } });
		expect(chosen.options?.map((o) => ('value' in o ? o.value : ''))).toEqual(['name', 'type', 'uri']);
	});

	test('an operation without a shape gets neither', () => {
		expect(shapeFields({ ...reads, shape: undefined })).toEqual([]);
	});

	test.each([OUTPUT, SELECTED_FIELDS])('an operation with a shape and its own "%s" parameter is refused when the node is described', (name) => {
		const clash: OperationSpec = { ...reads, fields: [{ displayName: 'Own', name, type: 'string', default: '' }] };
		const resources: ResourceSpec[] = [{ value: 'thing', name: 'Thing', operations: [clash] }];
		expect(() => describeResources(resources)).toThrow(`Operation "getAll" has its own "${name}" parameter and an output shape: rename its parameter`);
		expect(() => describeResources([{ ...resources[0], operations: [{ ...clash, shape: undefined }] }])).not.toThrow();
	});
});

describe('every operation that reads records has a shape', () => {
	/** Reads without the output choice, and why: no record, or nothing the contract shows to simplify. */
	const UNSHAPED: Record<string, string> = {
		'Conversation Intelligence session.getStreamToken': 'a short-lived token that opens a stream, not a record',
		'Wholesale Voice account.getType': 'four flat fields: Simplified would be Raw',
		'Wholesale Voice number.get': 'a routing document, nested by design: read and written as it is',
		'Wholesale Voice number.getSmsEndpoint': 'mode and endpoint: Simplified would be Raw',
		'Wholesale Voice number.getTrunk': 'one field',
		'Wholesale Voice notification.getAvailableTypes': 'type names, not records',
		'Wholesale Voice notification.getHistory': 'each a `data` object of the original notification\'s variables, which vary',
		'Wholesale Voice notification.getRecipients': 'type, method, destination, hash: Simplified would be Raw',
		'Wholesale Voice notification.getRecipientsByMethod': 'type, method, destination, hash: Simplified would be Raw',
		'Wholesale Voice notification.getRecipient': 'type, method, destination, hash: Simplified would be Raw',
		'Wholesale Voice port.getLosingProviders': 'cpName and cupid: Simplified would be Raw',
		'Wholesale Voice prepay.getBalance': 'balance and currency',
		'Wholesale Voice prepay.getBalanceAlert': 'account and alert balance',
		'Wholesale Voice prepay.getLockedBalance': 'four flat amounts',
		'Wholesale Voice prepay.getPrepayments': 'the contract does not show the fields',
		'Wholesale Voice prepay.getTransfers': 'the contract does not show the fields',
		'Wholesale Voice rate.getRateCard': 'a CSV file, and its rows are the flat columns of the contract',
		'Wholesale Voice report.getFile': 'report rows, whose fields depend on the report',
		'Wholesale Voice summary.get': 'the contract does not show the rows',
		'Wholesale Voice voice.getCallInProgress': 'the contract does not show the fields',
		'Wholesale Voice voice.getChannelHistory': 'samples of the contract do not show their fields (a time and counts)',
		'Wholesale Voice voice.getCurrentChannels': 'one sample: a time and counts',
		'Wholesale Voice voice.getRejectedCalls': 'the contract does not show the answer',
	};
	const nodes: Array<[string, ResourceSpec[]]> = [
		['Hosted PBX', hostedPbxResources],
		['Voice Agent', voiceAgentResources],
		['Conversation Intelligence', conversationIntelligenceResources],
		['Wholesale Voice', wholesaleVoiceResources],
	];
	const readers = nodes.flatMap(([node, resources]) =>
		resources.flatMap((r) => r.operations.filter((op) => op.paging !== undefined || /^get/.test(op.value)).map((op) => [`${node} ${r.value}.${op.value}`, op] as const)),
	);

	test.each(readers)('%s', (name, op) => {
		if (name in UNSHAPED) {
			expect([name, op.shape]).toEqual([name, undefined]);
			return;
		}
		expect(op.shape).toBeDefined();
		expect(op.shape!.fields.length).toBeGreaterThan(0);
		expect(op.shape!.fields).not.toContain('id');
	});

	test('every exception is a read the nodes have; Upgrade Operators, which answers the configuration, has a shape too', () => {
		const names: string[] = readers.map(([name]) => name);
		expect(Object.keys(UNSHAPED).filter((name) => !names.includes(name))).toEqual([]);
		const wholesale = readers.filter(([name, op]) => op.shape && name.startsWith('Wholesale Voice')).map(([name]) => name.slice('Wholesale Voice '.length));
		expect(wholesale).toEqual([
			'invoice.getAll', 'notification.getAll', 'port.get', 'port.getAll', 'rate.getDestinationRate', 'rate.getTariffs', 'trunk.get', 'trunk.getAll',
			'uk999.get', 'e911.get', 'voice.getCallsInProgress', 'voice.getCdrs', 'voice.getCdr', 'voice.getLimits',
		]);
		const upgrade = conversationIntelligenceResources.flatMap((r) => r.operations).find((op) => op.value === 'upgradeOperators');
		expect(upgrade?.shape?.fields).toContain('operators');
	});

	test('no operation of any node has a shape and its own Output or Fields parameter (the node would not load)', () => {
		for (const resources of [hostedPbxResources, voiceAgentResources, conversationIntelligenceResources, wholesaleVoiceResources]) {
			for (const op of resources.flatMap((r) => r.operations)) {
				const own = (op.fields ?? []).map((f) => f.name);
				expect([op.value, Boolean(op.shape) && (own.includes(OUTPUT) || own.includes(SELECTED_FIELDS))]).toEqual([op.value, false]);
			}
		}
		expect(new VoiceAgent().description.properties.length).toBeGreaterThan(0);
	});
});

describe('shapeItems', () => {
	test('Simplified (also when Output is not set): the id first, the simplified fields, no empty ones', () => {
		expect(shapeItems(shape, {}, [record])).toEqual([{ id: '7', name: 'Seven' }]);
		const [item] = shapeItems(shape, { output: 'simple' }, [record]) as IDataObject[];
		expect(Object.keys(item)).toEqual(['id', 'name']);
	});

	test('the id is the record\'s, whatever the simplifier says; a record without one gets none', () => {
		const liar: OutputShape = { fields: [], simplify: () => ({ id: 'other', name: 'x' }) };
		expect(shapeItems(liar, {}, [record, { name: 'no id' }])).toEqual([{ id: '7', name: 'x' }, { id: 'other', name: 'x' }]);
	});

	test('Raw: the items themselves', () => {
		const items = [record];
		expect(shapeItems(shape, { output: 'raw' }, items)).toBe(items);
	});

	test('Selected Fields: the id and the chosen fields the record has; `id` chosen is no second id', () => {
		expect(shapeItems(shape, { output: 'fields', fields: ['uri', 'missing', 'id'] }, [record])).toEqual([{ id: '7', uri: 'https://x/things/7' }]);
		expect(shapeItems(shape, { output: 'fields', fields: [] }, [record])).toEqual([{ id: '7' }]);
		expect(shapeItems(shape, { output: 'fields' }, [record])).toEqual([{ id: '7' }]);
	});

	test('the mark of a masked secret is kept, in every form', () => {
		const masked = { ...record, label: 'key *** here', redacted: true };
		expect(shapeItems(shape, {}, [masked])).toEqual([{ id: '7', name: 'Seven', label: 'key *** here', redacted: true }]);
		expect(shapeItems(shape, { output: 'fields', fields: ['type'] }, [masked])).toEqual([{ id: '7', type: 'thing', redacted: true }]);
	});

	test('a record without an `id` takes it from the field (or function) its shape names, in Simplified and Selected Fields', () => {
		const invoice = { InvoiceNumber: '700345', Total: '361.82' };
		const byField = shapeOf(['InvoiceNumber', 'Total'], [['total', 'Total']], 'InvoiceNumber');
		expect(shapeItems(byField, {}, [invoice])).toEqual([{ id: '700345', total: '361.82' }]);
		expect(shapeItems(byField, { output: 'fields', fields: ['Total'] }, [invoice])).toEqual([{ id: '700345', Total: '361.82' }]);
		const byFunction = shapeOf(['url'], ['quality'], (r) => String(r.url).split('/').pop());
		expect(shapeItems(byFunction, {}, [{ url: '/rates/csv/gold', quality: 'high' }])).toEqual([{ id: 'gold', quality: 'high' }]);
		// The record's own id wins; a blank one is no id.
		expect(shapeItems(byField, {}, [{ ...invoice, id: 'own' }, { ...invoice, InvoiceNumber: '' }])).toEqual([{ id: 'own', total: '361.82' }, { total: '361.82' }]);
	});

	test('what the node knows besides the answer (withKnown) is read by Simplified and Selected Fields, never shown in Raw', () => {
		const detail = { mbn: '01632960100', status: 'complete' };
		const byRef = shapeOf(['mbn', 'status'], ['status', 'currency'], 'ref');
		const items = [withKnown({ ...detail }, { ref: '40001', currency: 'GBP', status: 'not the answer' })];
		expect(shapeItems(byRef, { output: 'raw' }, items)).toEqual([detail]);
		expect(JSON.stringify(items)).toBe(JSON.stringify([detail]));
		// The answer's own fields win over what the node knows.
		expect(shapeItems(byRef, {}, items)).toEqual([{ id: '40001', status: 'complete', currency: 'GBP' }]);
		expect(shapeItems(byRef, { output: 'fields', fields: ['mbn'] }, items)).toEqual([{ id: '40001', mbn: '01632960100' }]);
	});

	test('an answer Simplified finds nothing in (no id, no field) is shown as it came, not as an empty item', () => {
		const empty = { success: true, data: null };
		expect(shapeItems(shape, {}, [empty])).toEqual([empty]);
		expect(shapeItems(shape, { output: 'fields', fields: ['name'] }, [empty])).toEqual([{}]);
	});

	test('files and anything that is no record pass unchanged', () => {
		const file = new FileOutput({ id: '7', fileName: 'a.wav', uri: 'https://x' }, Buffer.from('RIFF'), 'a.wav', 'audio/wav');
		const items = [file, null, 7, ['a']] as unknown as IDataObject[];
		const shaped = shapeItems(shape, {}, items);
		expect(shaped[0]).toBe(file);
		expect(shaped.slice(1)).toEqual([null, 7, ['a']]);
	});
});

describe('helpers of the simplifiers', () => {
	test('plain leaves out absent, null and empty text; keeps false and 0', () => {
		expect(plain({ a: undefined, b: null, c: '', d: '  ', e: false, f: 0, g: 'x' })).toEqual({ e: false, f: 0, g: 'x' });
	});

	test('shapeOf: fields by name, renamed, or computed; blank values left out, in the order given', () => {
		const cdr = shapeOf(['todesc', 'secs_call', 'from', 'tag'], ['from', ['destination', 'todesc'], ['minutes', (r) => Number(r.secs_call) / 60], 'tag']);
		const simple = cdr.simplify({ from: '4479', todesc: 'UK - Mobile', secs_call: 120, tag: '', iso: 'GB' });
		expect(simple).toEqual({ from: '4479', destination: 'UK - Mobile', minutes: 2 });
		expect(Object.keys(simple)).toEqual(['from', 'destination', 'minutes']);
		expect(cdr.fields).toEqual(['todesc', 'secs_call', 'from', 'tag']);
	});

	test('flat: the plain values of a nested object under a prefix; nested ones and no object give nothing', () => {
		expect(flat('health', { consecutive_failures: 0, last_error: null, detail: { a: 1 }, list: [1] })).toEqual({ health_consecutive_failures: 0, health_last_error: null });
		expect(flat('dynamic', null)).toEqual({});
		expect(flat('dynamic', 'text')).toEqual({});
	});

	test('utcTime: both platform forms as ISO UTC to the second with Z; a time without a zone is UTC; text that is no time stays', () => {
		expect(utcTime('2026-01-05 10:00:00')).toBe('2026-01-05T10:00:00Z');
		expect(utcTime('2026-01-05')).toBe('2026-01-05T00:00:00Z');
		expect(utcTime('2026-01-05T10:00:00.000+0000')).toBe('2026-01-05T10:00:00Z');
		expect(utcTime('2026-01-05T10:00:00Z')).toBe('2026-01-05T10:00:00Z');
		expect(utcTime('2026-01-05T11:00:00.250+0100')).toBe('2026-01-05T10:00:00Z');
		expect(utcTime('2026-01-05T10:00:00')).toBe('2026-01-05T10:00:00Z');
		expect(utcTime('yesterday')).toBe('yesterday');
		expect(utcTime('')).toBeUndefined();
		expect(utcTime(null)).toBeUndefined();
	});
});
