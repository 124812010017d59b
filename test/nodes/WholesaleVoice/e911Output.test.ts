import type { IDataObject } from 'n8n-workflow';

import { e911 } from '../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/actions/emergency';

/** e911 › Set and Get tell the user when the address in force is not the one sent (issue 19). */
const output = (body: unknown) => {
	const set = e911.operations.find((o) => o.value === 'set')!;
	return set.output!({ status: 200, headers: {}, body }, { number: '12025550143' } as never) as IDataObject;
};

const sent = { streetNum: '350', streetInfo: 'Fifth Avenue', city: 'New York', state: 'NY', postalCode: '10118' };

test('an address only upper-cased by the service differs, and the notice says how', () => {
	const item = output({ result: 'valid', address: sent, provisionedAddress: { ...sent, streetInfo: 'FIFTH AVENUE', city: 'NEW YORK' } });
	expect(item).toMatchObject({ provisionedDiffers: true, provisionedDifferences: ['city', 'streetInfo'] });
	expect(item.notice).toMatch(/upper-cased in: city, streetInfo/);
});

test('an abbreviated street is a change; the same address is no difference', () => {
	const item = output({ address: sent, provisionedAddress: { ...sent, streetInfo: '5th Ave' } });
	expect(item).toMatchObject({ provisionedDiffers: true, provisionedDifferences: ['streetInfo'] });
	expect(item.notice).toMatch(/changed \(abbreviated or corrected\) in: streetInfo/);
	expect(output({ address: sent, provisionedAddress: { ...sent, city: ' New York ' } })).toMatchObject({ provisionedDiffers: false, provisionedDifferences: [] });
});
