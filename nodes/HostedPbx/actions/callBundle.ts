import type { ResourceSpec } from '../../shared/operation';
import { getManyOperation, getOneOperation } from './collection';

const BUNDLES = { collection: 'callbundles', id: 'bundleId', singular: 'call bundle', plural: 'call bundles' };

export const callBundle: ResourceSpec = {
	value: 'callBundle',
	name: 'Call Bundle',
	description: 'Inclusive-minute bundles: used and available minutes, validity, renewal',
	operations: [getOneOperation(BUNDLES), getManyOperation(BUNDLES)],
};
