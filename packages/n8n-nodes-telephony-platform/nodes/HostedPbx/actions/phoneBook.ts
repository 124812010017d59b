import type { IDataObject } from 'n8n-workflow';

import { booleanField, collectionField, numericField, textField } from '../../shared/fields';
import type { OutputShape, Params, ResourceSpec } from '../../shared/operation';
import { plain } from '../../shared/outputShape';
import { compact } from '../../shared/params';
import { integerInRange, isBlank, issues, required } from '../../shared/validation';
import { phoneNumber, withoutTrunkPrefix } from '../../shared/phoneNumbers';
import { customerField, customerPath, idFieldOf, recordPath } from '../fields';
import { getManyOperation, getOneOperation } from './collection';
import { pbxOutput, pbxRecord, pbxRecords } from '../records';

/** An entry as Simplified shows it: name, number, speed dial. */
export const phoneBookShape: OutputShape = {
	fields: ['created', 'name', 'phoneNumber', 'speedDial', 'type', 'uri'],
	simplify: (r) => plain({ name: r.name, phoneNumber: r.phoneNumber, speedDial: r.speedDial }),
};

const PHONEBOOK = {
	collection: 'phonebook',
	id: 'entryId',
	singular: 'phone book entry',
	plural: 'phone book entries',
	shape: phoneBookShape,
};

const nameField = textField('Name', 'name', 'Full name of the contact', {
	required: true,
	placeholder: 'e.g. Sam Rivera',
});
const phoneNumberField = textField('Phone Number', 'phoneNumber', undefined, {
	required: true,
	placeholder: 'e.g. +447700900777',
});
const speedDialField = numericField(
	'Speed Dial',
	'speedDial',
	1,
	{ minValue: 1, maxValue: 9999, numberPrecision: 0 },
	{ description: 'Speed dial code, 1 to 9999' },
);

function entryIssues(fields: IDataObject, prefix = '') {
	return issues(
		fields.phoneNumber !== undefined
			? phoneNumber(`${prefix}Phone Number`, fields.phoneNumber)
			: undefined,
		integerInRange(`${prefix}Speed Dial`, fields.speedDial, 1, 9999),
	);
}

function entryBody(fields: IDataObject): IDataObject {
	return compact({
		type: 'phonebookentry',
		name: typeof fields.name === 'string' ? fields.name.trim() : fields.name,
		// As typed, but never with a national (0) after the country code: a phone would dial it.
		phoneNumber:
			typeof fields.phoneNumber === 'string'
				? withoutTrunkPrefix(fields.phoneNumber.trim())
				: fields.phoneNumber,
		// Absent, empty or null (how an entry without one may come back): not sent, never 0.
		speedDial: isBlank(fields.speedDial) ? undefined : Number(fields.speedDial),
	});
}

function updateFields(params: Params): IDataObject {
	return (params.updateFields as IDataObject | undefined) ?? {};
}

export const phoneBook: ResourceSpec = {
	value: 'phoneBook',
	name: 'Phone Book',
	description: "Entries of the customer's shared phone book",
	operations: [
		{
			value: 'create',
			name: 'Create',
			action: 'Create a phone book entry',
			description:
				'Add a contact to the shared phone book, optionally with a speed dial code from 1 to 9999',
			fields: [
				customerField,
				nameField,
				phoneNumberField,
				collectionField('Additional Fields', 'additionalFields', 'Add Field', [speedDialField]),
			],
			validate: (p) => {
				const fields = { name: p.name, phoneNumber: p.phoneNumber, ...(p.additionalFields ?? {}) };
				return issues(
					required('Name', p.name),
					required('Phone Number', p.phoneNumber),
					entryIssues(fields),
				);
			},
			request: (p) => ({
				method: 'POST',
				...customerPath(p, '/phonebook'),
				body: entryBody({
					name: p.name,
					phoneNumber: p.phoneNumber,
					...(p.additionalFields ?? {}),
				}),
			}),
			output: pbxOutput('Create a phone book entry', 'record'),
		},
		{
			value: 'delete',
			name: 'Delete',
			action: 'Delete a phone book entry',
			description: 'Delete a phone book entry permanently',
			fields: [customerField, idFieldOf(PHONEBOOK)],
			request: (p) => ({ method: 'DELETE', ...recordPath(PHONEBOOK, p) }),
			output: (_response, p) => ({ deleted: true, id: String(p.entryId) }),
		},
		getOneOperation(PHONEBOOK),
		getManyOperation({ ...PHONEBOOK, description: "List the customer's shared phone book" }),
		{
			value: 'update',
			name: 'Update',
			action: 'Update a phone book entry',
			description:
				'Change the name, number or speed dial of a phone book entry; fields left out keep their current values',
			fields: [
				customerField,
				idFieldOf(PHONEBOOK),
				collectionField('Update Fields', 'updateFields', 'Add Field', [
					{ ...nameField, required: false },
					{ ...phoneNumberField, required: false },
					speedDialField,
					booleanField(
						'Remove Speed Dial',
						'removeSpeedDial',
						'Whether to remove the speed dial code from the entry',
					),
				]),
			],
			validate: (p) => {
				const fields = updateFields(p);
				const given = Object.keys(fields).length > 0;
				return issues(
					given
						? undefined
						: {
								field: 'Update Fields',
								problem: 'no field was chosen',
								rule: 'add at least one field to change',
							},
					fields.name !== undefined ? required('Name', fields.name) : undefined,
					entryIssues(fields),
				);
			},
			// The API's PUT takes the full representation: read the entry, apply the changes, write it back.
			run: async ({ client }, p) => {
				const path = recordPath(PHONEBOOK, p);
				// Only a record is merged: text or null read here would write an entry made of the changes alone.
				const current = pbxRecord(
					await client.request({ method: 'GET', ...path }),
					'Update a phone book entry (reading it first; nothing was changed)',
				);
				const { removeSpeedDial, ...changes } = updateFields(p);
				const merged: IDataObject = { ...current, ...compact(changes) };
				if (removeSpeedDial) delete merged.speedDial;
				const response = await client.request({ method: 'PUT', ...path, body: entryBody(merged) });
				return pbxRecords(response, 'Update a phone book entry', 'record');
			},
		},
	],
};
