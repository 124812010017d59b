import type { OutputShape, ResourceSpec } from '../../shared/operation';
import { joined, plain } from '../../shared/outputShape';
import { customerField, customerPath } from '../fields';
import { pbxOutput, withIdBeside } from '../records';

/** A customer as Simplified shows it: company, account type, contact, and the address on one line. */
export const customerShape: OutputShape = {
	fields: [
		'accountType',
		'address1',
		'address2',
		'city',
		'company',
		'country',
		'created',
		'email',
		'firstName',
		'lastName',
		'links',
		'postcode',
		'properties',
		'telephone',
		'type',
		'uri',
	],
	simplify: (r) =>
		plain({
			company: r.company,
			accountType: r.accountType,
			contactName: joined([r.firstName, r.lastName]),
			email: r.email,
			telephone: r.telephone,
			address: joined([r.address1, r.address2, r.city, r.postcode, r.country], ', '),
		}),
};

export const customer: ResourceSpec = {
	value: 'customer',
	name: 'Customer',
	description: 'A company PBX account and its contact details',
	operations: [
		{
			value: 'get',
			name: 'Get',
			action: 'Get a customer',
			description:
				'Get one customer account: company, primary contact, address and links to its sub-resources',
			fields: [customerField],
			request: (p) => ({ method: 'GET', ...customerPath(p) }),
			output: pbxOutput('Get a customer', 'record', withIdBeside),
			shape: customerShape,
		},
		{
			value: 'getAll',
			name: 'Get Many',
			action: 'Get many customers',
			description:
				'List the customers this user can see: its own account, or every account a reseller owns',
			paging: 'pbx',
			request: () => ({ method: 'GET', path: '/customers' }),
			output: pbxOutput('Get many customers', 'any', withIdBeside),
			shape: customerShape,
		},
	],
};
