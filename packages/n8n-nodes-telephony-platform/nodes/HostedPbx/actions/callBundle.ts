import type { OutputShape, ResourceSpec } from '../../shared/operation';
import { plain, utcTime } from '../../shared/outputShape';
import { getManyOperation, getOneOperation } from './collection';

/** A bundle as Simplified shows it: its minutes, validity and renewal. */
export const callBundleShape: OutputShape = {
	fields: [
		'autoRenew',
		'availableMins',
		'created',
		'inclusiveMins',
		'name',
		'priceMonthly',
		'status',
		'type',
		'uri',
		'usedMins',
		'validFrom',
		'validTo',
	],
	simplify: (r) =>
		plain({
			name: r.name,
			status: r.status,
			inclusiveMins: r.inclusiveMins,
			usedMins: r.usedMins,
			availableMins: r.availableMins,
			validFrom: utcTime(r.validFrom),
			validTo: utcTime(r.validTo),
			autoRenew: r.autoRenew,
			priceMonthly: r.priceMonthly,
		}),
};

const BUNDLES = {
	collection: 'callbundles',
	id: 'bundleId',
	singular: 'call bundle',
	plural: 'call bundles',
	shape: callBundleShape,
};

export const callBundle: ResourceSpec = {
	value: 'callBundle',
	name: 'Call Bundle',
	description: 'Inclusive-minute bundles: used and available minutes, validity, renewal',
	operations: [getOneOperation(BUNDLES), getManyOperation(BUNDLES)],
};
