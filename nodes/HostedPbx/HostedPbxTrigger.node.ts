import type { INodeTypeBaseDescription, IVersionedNodeType } from 'n8n-workflow';
import { VersionedNodeType } from 'n8n-workflow';

import { HostedPbxTriggerV1 } from './v1/HostedPbxTriggerV1.node';
import { HostedPbxTriggerV2 } from './v2/HostedPbxTriggerV2.node';

/**
 * Version 2 (new nodes) lists every event, live and polled, in one Events parameter and polls on
 * n8n's Poll Times; version 1 keeps saved workflows running with their parameters unchanged.
 */
export class HostedPbxTrigger extends VersionedNodeType {
	constructor() {
		const baseDescription: INodeTypeBaseDescription = {
			displayName: 'Hosted PBX Trigger',
			name: 'hostedPbxTrigger',
			icon: { light: 'file:hostedPbx.svg', dark: 'file:hostedPbx.dark.svg' },
			group: ['trigger'],
			description: 'Starts a workflow on an incoming call, an SMS, a missed call or a finished call',
			defaultVersion: 2,
		};
		const nodeVersions: IVersionedNodeType['nodeVersions'] = {
			1: new HostedPbxTriggerV1(),
			2: new HostedPbxTriggerV2(),
		};
		super(nodeVersions, baseDescription);
	}
}
