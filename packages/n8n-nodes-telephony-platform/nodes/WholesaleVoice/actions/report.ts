import { binaryPropertyField } from '../../shared/describe';
import type { ResourceSpec } from '../../shared/operation';
import { compact } from '../../shared/params';
import { issues, matches, required } from '../../shared/validation';
import { wholesaleVoiceApi } from '../../shared/apis';
import { UnexpectedAnswer, isRecord } from '../../shared/responseShape';
import { booleanField, dateField, shownFor, textField } from '../../shared/fields';
import { ACCOUNT_PATH, keyedToList, operation, plainDate } from '../fields';
import {
	fetchReportFile,
	goneError,
	reportFields,
	reportIssues,
	reportOutput,
	rowsPerItemField,
	rowsPerItemIssue,
	runReport,
} from '../reports';
import { validateLatestCount, validateReportDate } from '../validation/account';

const REPORTS: Record<string, { path: string; dated: boolean; name: string }> = {
	voiceSummaryIn: {
		path: 'voice/summary/day/in',
		dated: true,
		name: 'Voice Summary of a Day, Inbound',
	},
	voiceSummaryOut: {
		path: 'voice/summary/day/out',
		dated: true,
		name: 'Voice Summary of a Day, Outbound',
	},
	voiceCdrDay: { path: 'voice/cdr/day', dated: true, name: 'Voice CDRs of a Day' },
	voiceCdrLatest: { path: 'voice/cdr/latest', dated: false, name: 'Latest Voice CDRs' },
	smsCdrDay: { path: 'sms/cdr/day', dated: true, name: 'SMS CDRs of a Day' },
	smsCdrLatest: { path: 'sms/cdr/latest', dated: false, name: 'Latest SMS CDRs' },
};

const includeRawFile = booleanField(
	'Include Raw File',
	'includeRawFile',
	'Whether to also output the file as binary data (on the first item)',
);

export const report: ResourceSpec = {
	value: 'report',
	name: 'Report',
	description: 'Voice and SMS reports: requested, then collected once from the files',
	operations: [
		{
			value: 'getFile',
			name: 'Get File',
			action: 'Get a report file',
			description:
				'Collect a report file by its hash (it can be fetched only once) and output its rows; says so when it is not ready yet',
			fields: [
				textField('Report Hash', 'hash', 'The 32-character hash of the report handle', {
					required: true,
				}),
				rowsPerItemField,
				includeRawFile,
				{ ...binaryPropertyField, ...shownFor('includeRawFile', true) },
			],
			validate: (p) =>
				issues(
					required('Report Hash', p.hash),
					matches(
						'Report Hash',
						String(p.hash ?? '').trim(),
						/^[0-9a-f]{32}$/i,
						'32 hexadecimal characters',
					),
					rowsPerItemIssue(p.rowsPerItem),
				),
			// A 204 is an answer here (not ready), a 404 an explained failure: more than one request outcome, so written as run.
			run: async (context, p) => {
				const hash = String(p.hash).trim();
				const file = await fetchReportFile(context.client, hash);
				if ('gone' in file) throw goneError(context, hash);
				if (!file.ready)
					return {
						hash,
						ready: false,
						message: 'The report is still running; get the file again shortly',
					};
				return reportOutput(hash, file.content, file.contentType, p);
			},
		},
		operation({
			value: 'listFiles',
			name: 'List Files',
			action: 'List uncollected report files',
			description: 'List the report files that are ready and not collected yet',
			path: '/v3/files/{ACCOUNT}',
			// An object keyed by hash (a list is taken as it is); text, null or a number is no empty list.
			output: (response) => {
				if (!isRecord(response.body) && !Array.isArray(response.body)) {
					throw new UnexpectedAnswer(
						wholesaleVoiceApi.label,
						'List uncollected report files',
						response.body,
						'an object keyed by file hash',
					);
				}
				return keyedToList(response.body, 'hash');
			},
		}),
		{
			value: 'request',
			name: 'Request',
			action: 'Request a report',
			description:
				'Run a voice or SMS report (summaries, CDRs of a day, latest CDRs); waits for it and returns its rows by default',
			fields: [
				{
					displayName: 'Report',
					name: 'reportType',
					type: 'options',
					default: 'voiceCdrDay',
					options: Object.entries(REPORTS).map(([value, r]) => ({ name: r.name, value })),
				},
				dateField(
					'date',
					'Date',
					'The day the report covers (default today; within the last 90 days)',
					shownFor('reportType', ...Object.keys(REPORTS).filter((k) => REPORTS[k].dated)),
				),
				{
					displayName: 'Latest',
					name: 'latest',
					type: 'options',
					default: '100',
					...shownFor('reportType', 'voiceCdrLatest', 'smsCdrLatest'),
					options: ['10', '100', '1000', '10000'].map((n) => ({ name: `Latest ${n}`, value: n })),
				},
				...reportFields,
			],
			validate: (p) => {
				const chosen = REPORTS[String(p.reportType)];
				if (!chosen)
					return [
						{
							field: 'Report',
							problem: `"${String(p.reportType)}" is not a report`,
							rule: `one of ${Object.keys(REPORTS).join(', ')}`,
						},
					];
				return [
					...(chosen.dated
						? validateReportDate('Date', plainDate(p.date))
						: validateLatestCount('Latest', p.latest, 'reports')),
					...reportIssues(p),
				];
			},
			run: async (context, p) => {
				const chosen = REPORTS[String(p.reportType)];
				const path = `${ACCOUNT_PATH}/reports/${chosen.path}`;
				if (chosen.dated)
					return await runReport(context, p, { path }, compact({ date: plainDate(p.date) }));
				return await runReport(
					context,
					p,
					{ path: `${path}/{latest}`, pathParams: { latest: p.latest } },
					{},
				);
			},
		},
	],
};
