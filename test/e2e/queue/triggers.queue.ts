/**
 * The package in n8n's queue mode (one main, two workers, one webhook processor, Postgres,
 * Redis; test/e2e/queue/cluster.ts) against the sandbox, one cluster for the file:
 *   - long-running triggers (Hosted PBX live stream, Conversation Intelligence SSE) hold one
 *     connection each, and one event gives one execution;
 *   - every recipe of examples/ has its effect on the sandbox, and its executions run on a
 *     worker (enqueued by main for triggers and pollers, by the webhook processor for webhooks);
 *   - conversation.initiating is answered through the webhook processor within timeout_ms, in
 *     three response modes (p50/p99 from the sandbox's delivery records);
 *   - a recording (WAV), an invoice (PDF) and a call history (CSV) made on a worker reach the
 *     next node intact, and main serves the same bytes (binary data in the database);
 *   - a self-registering webhook is created once, survives restarts of every process without a
 *     second registration or a deletion, and is deleted on deactivation.
 * See docs/scaling.md.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as os from 'node:os';

import { startSandbox } from '../../../sandbox/index';
import { httpRequest, nodeResult, runError, type N8nRun } from '../harness';
import { EXAMPLES_DIR, exampleFiles, loadExample, type SandboxLoggedRequest } from '../sandboxAdmin';
import type { ProcessName, QueueCluster } from './cluster';
import {
	AGENT, AGENTS, DEMO_SESSION, ID, MORE_RECIPES, ONCE_SESSION, RECIPE, WHOLESALE_HOOK,
	answerByLastNode, answerByRespondNode, answerImmediately, binaryWorkflow, ciOnceWorkflow, hookOnce, pbxOnceWorkflow,
} from './workflows';
import {
	PBX_BASIC, SMS_PATH, TEAM, WV_BASIC,
	agentWebhooks, allExecutions, executionRows, holds, paced, recordFigures, signedIn, startQueueSetup, stopQueueSetup, summarize, until,
	waitForFinished, workersOf, type QueueSetup,
} from './kit';

describe('the package in n8n queue mode: triggers, webhooks, binary data (1 main, 2 workers, 1 webhook processor)', () => {
	let setup: QueueSetup;
	let cluster: QueueCluster;
	const admin = () => setup.admin;
	const fileStarted = Date.now();

	const smsSent = async (since: number, match: (body: Record<string, string>) => boolean, count = 1, timeoutMs = 60_000) =>
		await admin().waitForRequests({ api: 'pbx', method: 'POST', pathPrefix: SMS_PATH, since }, (r) => r.status === 201 && match(r.body), { count, timeoutMs });
	const pbxStreams = async () => await admin().get<Array<{ id: number; username: string }>>('/pbx/streams');
	const sessionStreams = async (session: string) => (await admin().get<Array<{ sessionId: string }>>('/intelligence/streams')).filter((s) => s.sessionId === session);
	/**
	 * A call record at the PBX. Records carry whole-second timestamps and the pre-call recipe takes the
	 * newest inbound call as the caller, so each call goes in a later second than the one before.
	 */
	let lastCallSecond = 0;
	const injectCall = async (body: Record<string, unknown>) => {
		await until('the next second', () => Math.floor(Date.now() / 1000) > lastCallSecond, 5000, 50);
		lastCallSecond = Math.floor(Date.now() / 1000);
		await admin().post('/pbx/calls/incoming', body);
	};
	/** The one run among `runs` whose trigger emitted an item matching `match`. */
	const runWhere = <R extends N8nRun>(runs: R[], triggerNode: string, match: (json: Record<string, unknown>) => boolean): R => {
		const found = runs.filter((run) => nodeResult(run, triggerNode).json.some(match));
		if (found.length !== 1) throw new Error(`expected one run of ${triggerNode} matching, found ${found.length} of ${runs.length}`);
		return found[0];
	};

	/** The execution ran on exactly one worker, and was put on the queue by `enqueuer`. */
	const expectOnAWorker = async (executionId: string, enqueuer: ProcessName) => {
		const ran = await workersOf(cluster, executionId);
		expect({ executionId, ran }).toEqual({ executionId, ran: [expect.stringMatching(/^worker\d$/)] });
		expect({ executionId, enqueuedBy: cluster.processesThatEnqueued(executionId) }).toEqual({ executionId, enqueuedBy: [enqueuer] });
		return ran[0];
	};
	/** The runs of a workflow that ended, as run data (REST on main), oldest first. */
	const runsOf = async (workflowId: string, count: number): Promise<Array<N8nRun & { id: string }>> => {
		const rows = await waitForFinished(cluster, workflowId, count);
		await signedIn(cluster);
		return await Promise.all(rows.map(async (r) => ({ ...(await cluster.main.execution(r.id)), id: r.id })));
	};

	beforeAll(async () => {
		const recipes = exampleFiles().map((file) => loadExample(file));
		// The invoice to download: the newest of account 123456 (the sandbox's seed is the same on every start).
		const probe = await startSandbox({ port: 0, host: '127.0.0.1' });
		let invoiceNumber: string;
		try {
			const list = await httpRequest<{ Invoices: Array<{ InvoiceNumber: string }> }>(`${probe.url}/v3/accounts/123456/credit/invoices/all`, { headers: { authorization: WV_BASIC } });
			invoiceNumber = list.body.Invoices[0].InvoiceNumber;
		} finally {
			await probe.close();
		}

		// The wholesale recipes take deliveries from 127.0.0.1 here (the sandbox), as in the e2e tests.
		const wholesale = ['cdr-call-log.json', 'port-status-sms.json', 'report-ready-rows.json'].map((f) => loadExample(path.join('wholesale', f)));
		for (const node of wholesale.flatMap((w) => w.nodes as Array<Record<string, any>>)) {
			if (String(node.type).endsWith('.wholesaleVoiceTrigger')) Object.assign(node.parameters, { sourceNetworks: 'custom', customNetworks: '127.0.0.1/32' });
		}
		const ai = ['ai-receptionist.json', 'after-call-assistant.json'].map((f) => loadExample(path.join('ai-agents', f)));

		setup = await startQueueSetup([
			...recipes, ...wholesale, ...ai, pbxOnceWorkflow(), ciOnceWorkflow(), hookOnce(), answerByLastNode(), answerImmediately(), answerByRespondNode(), binaryWorkflow(invoiceNumber),
		]);
		cluster = setup.cluster;
		await admin().post('/intelligence/sessions', { session_id: ONCE_SESSION });
		await admin().post('/llm/scripts', JSON.parse(fs.readFileSync(path.join(EXAMPLES_DIR, 'ai-agents', 'scripted-model.json'), 'utf8')));
		await admin().post('/wholesale/settings', { reportReadyMs: 300 });
		const t0 = Date.now();
		const ids = [...Object.values(RECIPE), ...Object.values(MORE_RECIPES), ...Object.values(ID)];
		for (const id of ids) await cluster.main.activateNow(id);
		console.log(`activated ${ids.length} workflows in ${Date.now() - t0} ms`);
		// The webhook processor serves a production webhook a moment after activation: an empty POST
		// is refused by the trigger (400, nothing started) once it does.
		for (const hook of Object.values(WHOLESALE_HOOK)) await until(`${hook} served`, async () => (await httpRequest(cluster.webhookUrl(hook), { method: 'POST' })).status !== 404, 60_000, 250);
	});

	afterAll(async () => {
		await stopQueueSetup(setup);
		console.log(`triggers suite: ${((Date.now() - fileStarted) / 1000).toFixed(1)} s`);
	});

	describe('long-running triggers hold one connection each, whatever the number of workers and webhook processors', () => {
		test('one PBX live stream per live trigger workflow, one SSE stream per session trigger, and they stay single', async () => {
			// Two workflows with a live PBX trigger: the incoming-call recipe and this file's SMS one.
			await until('two PBX live streams', async () => (await pbxStreams()).length >= 2);
			await until('the SSE stream of the recipe session', async () => (await sessionStreams(DEMO_SESSION)).length >= 1);
			await until('the SSE stream of the test session', async () => (await sessionStreams(ONCE_SESSION)).length >= 1);
			await holds(
				'2 PBX streams, 1 SSE stream per session',
				async () => (await pbxStreams()).length === 2 && (await sessionStreams(DEMO_SESSION)).length === 1 && (await sessionStreams(ONCE_SESSION)).length === 1,
				5000,
			);
			expect((await pbxStreams()).map((s) => s.username)).toEqual(['acme.admin', 'acme.admin']);
			// Only main opened them: workers and the webhook processor never run trigger functions.
			expect(cluster.logs('main')).not.toMatch(/There was a problem/);
		});

		test('one PBX live event gives exactly one execution, on a worker', async () => {
			const marker = `queue-once-${Date.now()}`;
			await admin().post('/pbx/events', { event: 'smsreceived', values: { from: '+447700900321', to: '+441632960001', excerpt: marker } });
			const [row] = await waitForFinished(cluster, ID.pbxOnce, 1);
			await holds('one execution', async () => (await executionRows(cluster, ID.pbxOnce)).length === 1, 5000);
			expect(row.status).toBe('success');
			const [run] = await runsOf(ID.pbxOnce, 1);
			expect(nodeResult(run, 'SMS received').json).toEqual([expect.objectContaining({ event: 'smsreceived', excerpt: marker })]);
			await expectOnAWorker(row.id, 'main');
		});

		test('one session event gives exactly one execution, on a worker', async () => {
			await admin().post(`/intelligence/sessions/${ONCE_SESSION}/script`, {
				events: [{ event_type: 'operator_result', operator: 'sentiment', result: { value: 'negative' }, confidence: 0.9, speaker: 'caller', trigger_text: 'queue once' }],
				intervalMs: 0,
				wait: true,
			});
			const [row] = await waitForFinished(cluster, ID.ciOnce, 1);
			await holds('one execution', async () => (await executionRows(cluster, ID.ciOnce)).length === 1, 5000);
			expect(row.status).toBe('success');
			const [run] = await runsOf(ID.ciOnce, 1);
			expect(nodeResult(run, 'Session event').json).toEqual([expect.objectContaining({ event_type: 'operator_result', operator_name: 'sentiment' })]);
			await expectOnAWorker(row.id, 'main');
		});
	});

	describe('every recipe of examples/ has its effect on the sandbox, and runs on a worker', () => {
		test('missed call (poller on main) -> SMS to the caller; executed on a worker', async () => {
			const since = await admin().lastSeq();
			await injectCall({ from: '+447700900555', callerIdName: 'Pat Missed', outcome: 'NO_ANSWER' });
			// The recipe polls at n8n's Poll Times, every minute.
			const [sms] = await smsSent(since, (b) => b.to === '+447700900555', 1, 150_000);
			expect(sms.body.body).toBe('Hi Pat Missed, sorry we missed your call. We will ring you back shortly. - Acme Widgets');
			const [run] = await runsOf(RECIPE.missedCall, 1);
			expect(runError(run)).toBeUndefined();
			expect(nodeResult(run, 'Missed call').json).toEqual([expect.objectContaining({ fromNumber: '+447700900555', outcome: 'NO_ANSWER' })]);
			await expectOnAWorker(run.id, 'main');
		});

		test('incoming call (live stream on main) -> phone book lookup -> SMS to the team; executed on a worker', async () => {
			const since = await admin().lastSeq();
			await injectCall({ from: '+447700900002', callerIdName: 'B SMITH', endpointId: '202', outcome: 'ANSWERED' });
			const [sms] = await smsSent(since, (b) => b.to === TEAM && b.body.includes('+447700900002'));
			expect(sms.body.body).toBe('Incoming call from Bob Smith (+447700900002), ringing extension 202.');
			// The missed call of the test before also rang: two runs, this one is Bob's.
			const run = runWhere(await runsOf(RECIPE.incomingCall, 2), 'Incoming call', (j) => j.callerIdNumber === '+447700900002');
			expect(runError(run)).toBeUndefined();
			expect(nodeResult(run, 'Find the caller').json).toEqual([expect.objectContaining({ known: true, contactName: 'Bob Smith' })]);
			await expectOnAWorker(run.id, 'main');
		});

		let conversation: Record<string, any>;

		test('voice agent pre-call lookup (webhook processor, answer from the worker) -> dynamic variables within timeout_ms', async () => {
			await injectCall({ from: '+447700900001', callerIdName: 'ALICE J', outcome: 'ANSWERED' });
			conversation = await admin().post('/convai/conversations', { agent_id: AGENT, completedDelayMs: 0, waitForCompleted: true });
			expect(conversation.dynamic_variables).toEqual({ caller_number: '+447700900001', known_customer: true, customer_name: 'Alice Jones', first_name: 'Alice' });
			const initiating = (conversation.deliveries as Array<Record<string, any>>).filter((d) => d.eventType === 'conversation.initiating');
			expect(initiating).toHaveLength(1);
			expect(initiating[0]).toMatchObject({ outcome: 'delivered', response: { status: 200, timedOut: false } });
			expect(initiating[0].attempts).toHaveLength(1);
			expect(initiating[0].url.startsWith(cluster.webhookBaseUrl)).toBe(true);
			console.log(`pre-call lookup answered in ${initiating[0].response.elapsedMs} ms through the webhook processor`);
			const [run] = await runsOf(RECIPE.preCall, 1);
			expect(runError(run)).toBeUndefined();
			await expectOnAWorker(run.id, 'webhook1');
		});

		test('voice agent post-call summary (webhook processor) -> SMS to the team; executed on a worker', async () => {
			const [sms] = await smsSent(0, (b) => b.to === TEAM && b.body.includes(conversation.conversation_id));
			expect(sms.body.body).toMatch(new RegExp(`^Voice agent call ${conversation.conversation_id} \\(\\d+ s, success\\): The caller asked about order 55231\\.`));
			const [run] = await runsOf(RECIPE.postCall, 1);
			expect(runError(run)).toBeUndefined();
			await expectOnAWorker(run.id, 'webhook1');
		});

		test('live analysis alert (SSE trigger on main) -> two alert SMS; four runs, each on a worker', async () => {
			const since = await admin().lastSeq();
			const played = await admin().post(`/intelligence/sessions/${DEMO_SESSION}/script`, { preset: 'demo', intervalMs: 20, wait: true });
			expect(played.state).toBe('ended');
			const alerts = await smsSent(since, (b) => b.to === TEAM && /^(Negative sentiment|Escalation requested) on call /.test(b.body), 2);
			expect(alerts.map((a) => a.body.body.split(' on call ')[0])).toEqual(['Negative sentiment', 'Escalation requested']);
			const runs = await runsOf(RECIPE.liveAnalysis, 4);
			expect(runs).toHaveLength(4);
			for (const run of runs) {
				expect(runError(run)).toBeUndefined();
				await expectOnAWorker(run.id, 'main');
			}
		});
	});

	describe('the wholesale and AI Agent recipes of examples/ have their effect, and run on a worker', () => {
		const wholesaleDelivery = async (hook: string, order: Record<string, unknown>) =>
			(await admin().post<{ deliveries: Array<Record<string, any>> }>('/wholesale/deliveries', { url: cluster.webhookUrl(hook), ...order })).deliveries[0];

		// KNOWN LIMITATION (n8n 2.40 queue mode, not the node): the worker stores the workflow's static
		// data after each execution, but a webhook-started execution runs with the copy of the workflow
		// the webhook processor holds, so it does not see what earlier executions stored; each one
		// overwrites the last. The CDR call log recipe keeps its running log there: in queue mode it
		// needs a database instead (docs/scaling.md). This test fails the day n8n carries it over.
		test('every finished call (CDR) -> one run each, on a worker; the running log in static data is not carried from one run to the next', async () => {
			const sent: Array<Record<string, any>> = [];
			for (const i of [0, 1]) {
				const delivery = await wholesaleDelivery(WHOLESALE_HOOK.cdrCallLog, { app: 'cdr', id: `queue-log-${i}` });
				expect(delivery).toMatchObject({ status: 200, outcome: 'delivered' });
				sent.push(delivery.document.data);
				// One at a time, as calls end, and time for the worker to store the log before the next call.
				await waitForFinished(cluster, MORE_RECIPES.cdrCallLog, i + 1);
				await until('the stored log names this call', async () => (await cluster.sql(`select "staticData" from workflow_entity where id = '${MORE_RECIPES.cdrCallLog}'`)).includes(String(sent[i].cdr_id)), 30_000, 250);
			}
			const runs = await runsOf(MORE_RECIPES.cdrCallLog, 2);
			expect(runs.map((r) => runError(r))).toEqual([undefined, undefined]);
			const logged = runs.map((r) => nodeResult(r, 'Add to the call log').json[0]);
			expect(logged.map((e) => [e.cdr_id, e.loggedCalls])).toEqual([
				[String(sent[0].cdr_id), 1],
				[String(sent[1].cdr_id), 1], // 2 without queue mode (test/e2e/wholesaleTrigger.e2e.ts)
			]);
			const stored = await cluster.sql(`select "staticData" from workflow_entity where id = '${MORE_RECIPES.cdrCallLog}'`);
			expect([stored.includes(String(sent[0].cdr_id)), stored.includes(String(sent[1].cdr_id))]).toEqual([false, true]);
			recordFigures('static data written by executions', { recipe: 'examples/wholesale/cdr-call-log.json', loggedCallsPerRun: logged.map((e) => e.loggedCalls), storedAfterwards: 'the last run\'s log only' });
			for (const run of runs) await expectOnAWorker(run.id, 'webhook1');
		});

		test('port status change -> an SMS to the customer through the Hosted PBX', async () => {
			const since = await admin().lastSeq();
			await admin().post('/wholesale/webhooks', { app: 'porting', url: cluster.webhookUrl(WHOLESALE_HOOK.portSms), encoding: 'json' });
			await admin().post('/wholesale/ports/40003/advance', {});
			await admin().post('/wholesale/ports/40003/advance', { port_date: '2026-12-04 09:00:00' });
			const [sms] = await smsSent(since, (b) => b.to === '+447700900123' && b.body.includes('01134960300'));
			expect(sms.body.body).toMatch(/^Hi Jane, the move of your number 01134960300 to us is confirmed for 2026-12-04 at 09:00\./);
			const runs = await runsOf(MORE_RECIPES.portSms, 2);
			for (const run of runs) {
				expect(runError(run)).toBeUndefined();
				await expectOnAWorker(run.id, 'webhook1');
			}
		});

		test('report ready -> the report collected on a worker -> totals per destination', async () => {
			const response = await httpRequest<{ hash: string }>(`${setup.sandbox.url}/v3/accounts/123456/reports/voice/cdr/latest/100`, {
				method: 'POST',
				headers: { authorization: WV_BASIC, 'content-type': 'application/json' },
				body: JSON.stringify({ callback: cluster.webhookUrl(WHOLESALE_HOOK.reportRows) }),
			});
			expect(response.body.hash).toMatch(/^[0-9a-f]{32}$/);
			const [run] = await runsOf(MORE_RECIPES.reportRows, 1);
			expect(runError(run)).toBeUndefined();
			expect(nodeResult(run, 'Report ready').json).toHaveLength(100);
			expect(nodeResult(run, 'Totals per destination').json.reduce((sum, t) => sum + Number(t.calls), 0)).toBe(100);
			await expectOnAWorker(run.id, 'webhook1');
		});

		test('AI receptionist: the AI Agent with Hosted PBX tools answers conversation.initiating through the webhook processor, in time', async () => {
			await injectCall({ from: '+447700900001', callerIdName: 'ALICE J', outcome: 'ANSWERED' });
			const conversation = await admin().post('/convai/conversations', { agent_id: 'agent_ai_receptionist', completed: false });
			const [delivery] = conversation.deliveries as Array<Record<string, any>>;
			expect(delivery).toMatchObject({ eventType: 'conversation.initiating', outcome: 'delivered', response: { status: 200, timedOut: false } });
			expect(conversation.dynamic_variables).toMatchObject({ caller_number: '+447700900001', customer_name: 'Alice Jones', first_name: 'Alice', known_customer: true, account_type: 'PREPAID' });
			console.log(`AI receptionist answered in ${delivery.response.elapsedMs} ms through the webhook processor`);
			const [run] = await runsOf(MORE_RECIPES.receptionist, 1);
			expect(runError(run)).toBeUndefined();
			await expectOnAWorker(run.id, 'webhook1');
		});

		test('after-call assistant: a new caller asks for a text -> the AI Agent adds them to the phone book and texts them, on a worker', async () => {
			const caller = '+447700900888';
			const since = await admin().lastSeq();
			await injectCall({ from: caller, callerIdName: 'D FOX', outcome: 'ANSWERED' });
			await admin().post('/convai/conversations', {
				agent_id: 'agent_ai_receptionist',
				waitForCompleted: true,
				transcript: [
					{ role: 'agent', message: 'Hello, thanks for calling Acme Widgets. How can I help?', time_in_call_secs: 0 },
					{ role: 'user', message: 'Hi, this is Dana Fox. Could you text me your opening hours? And please keep my number for next time.', time_in_call_secs: 3.5 },
					{ role: 'agent', message: "Of course, Dana. I'll send you a text with our opening hours right after this call.", time_in_call_secs: 9.2 },
				],
				analysis: { transcript_summary: 'Dana Fox asked for the opening hours by text and to be kept as a contact.' },
			});
			const [sms] = await smsSent(since, (b) => b.to === caller);
			expect(sms.body.body).toBe('Hi Dana, our opening hours are Monday to Friday, 9:00 to 17:30. - Acme Widgets');
			const [entry] = await admin().waitForRequests({ api: 'pbx', method: 'POST', pathPrefix: '/api/v1/customers/me/phonebook', since }, (r) => r.status === 201);
			expect(entry.body).toMatchObject({ name: 'Dana Fox', phoneNumber: caller });
			const [run] = await runsOf(MORE_RECIPES.afterCall, 1);
			expect(runError(run)).toBeUndefined();
			await expectOnAWorker(run.id, 'webhook1');
		});
	});

	describe('conversation.initiating answered in time through the webhook processor', () => {
		/** What each mode answers; `answer` is what the agent must get as dynamic_variables. */
		const modes = [
			{ key: 'lastNode', agent: AGENTS.lastNode, workflowId: ID.lastNode, label: '"When Last Node Finishes" (a Set node\'s item)', answer: (c: string) => ({ answered_by: 'last node', conversation: c }) },
			{ key: 'respondNode', agent: AGENTS.respond, workflowId: ID.respond, label: "\"Using 'Respond to Webhook' Node\" (version 1)", answer: (c: string) => ({ answered_by: 'respond node', conversation: c }) },
			{ key: 'immediate', agent: AGENTS.immediate, workflowId: ID.immediate, label: '"Immediately, With Values Set Here"', answer: () => ({ answered_by: 'trigger', plan: 'gold' }) },
		];
		const COUNT = 100;
		const PACED = 50;
		const INTERVAL_MS = 500;
		const BURST = 20;

		beforeAll(async () => {
			// Each delivery judged on its own: no "failing" state (3 failures in a row) that would suspend the next ones.
			await admin().post('/convai/settings', { failureThreshold: 1_000_000 });
		});

		/** Per answer: in time (status 200, one attempt, the expected variables) or late/wrong, with why. */
		const check = (answers: Array<Record<string, any>>, expected: ((c: string) => Record<string, unknown>) | undefined) => {
			const elapsed: number[] = [];
			const problems: string[] = [];
			const late: string[] = [];
			for (const answer of answers) {
				const deliveries = (answer.deliveries as Array<Record<string, any>>).filter((d) => d.eventType === 'conversation.initiating');
				const d = deliveries[0];
				if (deliveries.length === 1 && d.outcome === 'timed_out' && d.attempts.length === 1 && d.attempts[0].timedOut) {
					late.push(answer.conversation_id);
					continue;
				}
				if (deliveries.length !== 1 || d.outcome !== 'delivered' || d.attempts.length !== 1 || d.response?.status !== 200 || d.response.timedOut) {
					problems.push(`${answer.conversation_id}: ${deliveries.length} deliveries, ${d?.outcome}, attempts ${JSON.stringify(d?.attempts)}`);
					continue;
				}
				if (expected && JSON.stringify(answer.dynamic_variables) !== JSON.stringify(expected(answer.conversation_id))) {
					problems.push(`${answer.conversation_id}: dynamic_variables ${JSON.stringify(answer.dynamic_variables)}`);
				}
				elapsed.push(d.response.elapsedMs);
			}
			return { elapsed, problems, late };
		};
		const conversation = async (agent: string) => await admin().post('/convai/conversations', { agent_id: agent, completed: false });

		/** The execution that carries this conversation id (found in its run data), with its status and how long it took. */
		const executionOf = async (workflowId: string, conversationId: string) => {
			const out = await cluster.sql(
				`select e.id, e.status, round(extract(epoch from (e."stoppedAt" - e."createdAt")) * 1000) from execution_entity e join execution_data d on d."executionId" = e.id where e."workflowId" = '${workflowId}' and d.data like '%${conversationId}%'`,
			);
			return out ? out.split('\n').map((line) => { const [id, status, ms] = line.split('\t'); return { id, status, ms: Number(ms) }; }) : [];
		};

		/** 100 calls one after another, 50 at 2/s, 20 at once; figures recorded; every delivery one successful execution on a worker. */
		const measure = async (mode: (typeof modes)[number]) => {
			const [hook] = (await agentWebhooks(admin())).filter((w) => w.agent_id === mode.agent);
			expect(hook).toMatchObject({ event_type: 'conversation.initiating', timeout_ms: 5000 });
			expect(String(hook.url).startsWith(`${cluster.webhookBaseUrl}/webhook/`)).toBe(true);
			const before = (await executionRows(cluster, mode.workflowId)).length;
			// One call after another: what each caller waits for.
			const started = Date.now();
			const answers: Array<Record<string, any>> = [];
			for (let i = 0; i < COUNT; i++) answers.push(await conversation(mode.agent));
			const sequential = { ...check(answers, mode.answer), wallMs: Date.now() - started };
			// Calls arriving at 2/s, then 20 at the same moment: they measure the machine as much as n8n.
			const steady = check(await paced(PACED, INTERVAL_MS, async () => await conversation(mode.agent)), mode.answer);
			const burst = check(await Promise.all(Array.from({ length: BURST }, async () => await conversation(mode.agent))), mode.answer);

			// Every delivery (answered in time or not) became exactly one execution, on a worker.
			const total = COUNT + PACED + BURST;
			const rows = await waitForFinished(cluster, mode.workflowId, before + total);
			expect(rows).toHaveLength(before + total);
			expect(rows.filter((r) => r.status !== 'success')).toEqual([]);
			for (const r of rows.slice(-3)) await expectOnAWorker(r.id, 'webhook1');
			// For each late answer: its execution, and how long the worker took (created -> stopped).
			const lateExecutions = [];
			for (const c of [...sequential.late, ...steady.late, ...burst.late]) lateExecutions.push({ conversation: c, executions: await executionOf(mode.workflowId, c) });
			const within = (r: { elapsed: number[] }) => r.elapsed.length;
			recordFigures(`answer in time: ${mode.key}`, {
				mode: mode.label, timeoutMs: 5000,
				oneAfterAnother: { deliveries: COUNT, answeredInTime: within(sequential), late: sequential.late.length, answerMs: summarize(sequential.elapsed), wallMs: sequential.wallMs },
				at2PerSecond: { deliveries: PACED, answeredInTime: within(steady), late: steady.late.length, answerMs: summarize(steady.elapsed) },
				burstOf20: { deliveries: BURST, answeredInTime: within(burst), late: burst.late.length, answerMs: summarize(burst.elapsed) },
				lateAnswers: lateExecutions.map((l) => ({ conversation: l.conversation, execution: l.executions[0]?.id, status: l.executions[0]?.status, executionMs: l.executions[0]?.ms, executions: l.executions.length })),
				loadAverage: os.loadavg().map((l) => Math.round(l * 10) / 10),
				command: 'npm run test:queue -- triggers',
			});
			expect([...sequential.problems, ...steady.problems, ...burst.problems].slice(0, 10)).toEqual([]);
			return { sequential, steady, burst, lateExecutions };
		};

		test.each(modes.filter((m) => m.key !== 'lastNode'))('$label: 100 calls one after another, each answered 200 within timeout_ms (5000 ms) with its variables; one execution each, on a worker', async (mode) => {
			const { sequential } = await measure(mode);
			expect(sequential.late).toEqual([]);
			expect(summarize(sequential.elapsed).max).toBeLessThan(5000);
		});

		// KNOWN PROBLEM (n8n 2.40 queue mode, not the node): with "When Last Node Finishes" the webhook
		// processor waits for Bull's `job.finished()`. n8n removes completed jobs at once
		// (removeOnComplete = N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED = 0), so when the job's
		// "global:completed" message arrives before the listener is attached, nothing ever resolves
		// the wait (Bull's 5 s watchdog looks for the job in the completed set, where it no longer is):
		// the caller gets no answer although the worker finished in time. Here: each late answer has
		// exactly one successful execution that finished well within timeout_ms. See docs/scaling.md.
		test('"When Last Node Finishes": answers within timeout_ms, except the ones n8n loses on the way back (each of those ran once, in time, on a worker)', async () => {
			const mode = modes.find((m) => m.key === 'lastNode')!;
			const { sequential, steady, burst, lateExecutions } = await measure(mode);
			const answered = sequential.elapsed.length + steady.elapsed.length + burst.elapsed.length;
			expect(answered).toBeGreaterThanOrEqual(0.9 * (COUNT + PACED + BURST));
			for (const l of lateExecutions) {
				expect({ conversation: l.conversation, executions: l.executions.length, status: l.executions[0]?.status }).toEqual({ conversation: l.conversation, executions: 1, status: 'success' });
			}
			// The ones answered were answered in time.
			expect(summarize([...sequential.elapsed, ...steady.elapsed]).max).toBeLessThan(5000);
		});

		test('"Immediately, With Values Set Here" answers with the values set in the node, not with anything of n8n\'s own', async () => {
			const answer = await admin().post('/convai/conversations', { agent_id: AGENTS.immediate, completed: false });
			expect(answer.deliveries[0].response).toMatchObject({ status: 200, body: { dynamic_variables: { answered_by: 'trigger', plan: 'gold' } } });
			expect(answer.dynamic_variables).toEqual({ answered_by: 'trigger', plan: 'gold' });
		});
	});

	describe('binary data between processes', () => {
		test('a recording (WAV), an invoice (PDF) and a call history (CSV) made on a worker reach the next node intact; main serves the same bytes', async () => {
			const since = await admin().lastSeq();
			const res = await httpRequest(cluster.webhookUrl('queue-binary'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
			expect(res.status).toBe(200);
			const [run] = await runsOf(ID.binary, 1);
			expect(runError(run)).toBeUndefined();
			const worker = await expectOnAWorker(run.id, 'webhook1');
			await signedIn(cluster);

			// What the nodes fetched, fetched again by the test from the sandbox: the reference bytes.
			const fetched = await admin().requests({ method: 'GET', since });
			const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
			const direct = async (match: (r: SandboxLoggedRequest) => boolean, authorization: string) => {
				const r = fetched.find(match);
				if (!r) throw new Error(`no matching request in ${JSON.stringify(fetched.map((f) => f.path))}`);
				const query = new URLSearchParams(r.query as Record<string, string>).toString();
				const body = await rawGet(`${setup.sandbox.url}${r.path}${query ? `?${query}` : ''}`, { authorization, accept: r.headers.accept ?? '*/*' });
				return body;
			};
			const files = [
				{ node: 'Hash the recording', source: 'Recording', mimeType: 'audio/wav', name: /^recording-.+\.wav$/, magic: 'RIFF', bytes: await direct((r) => r.api === 'pbx' && /\/recordings\/[^/]+$/.test(r.path), PBX_BASIC) },
				{ node: 'Hash the invoice', source: 'Invoice', mimeType: 'application/pdf', name: /^invoice-.+\.pdf$/, magic: '%PDF', bytes: await direct((r) => r.api === 'wholesale' && r.path.endsWith('.pdf'), WV_BASIC) },
				{ node: 'Hash the call history', source: 'Call history', mimeType: 'text/csv', name: /^call-history-me-.+\.csv$/, magic: '', bytes: await direct((r) => r.api === 'pbx' && r.path === '/api/v1/customers/me/calls' && /csv/.test(r.headers.accept ?? ''), PBX_BASIC) },
			];
			const figures: Record<string, unknown> = {};
			for (const f of files) {
				// The download node's item carries the file's metadata; the hash node read the bytes back from the store.
				const meta = nodeResult(run, f.source).items[0].binary!.data;
				const [item] = nodeResult(run, f.node).items;
				// The next node read the bytes back from n8n's binary data store and hashed them.
				expect({ node: f.node, sha256: item.json.sha256, mimeType: meta.mimeType }).toEqual({ node: f.node, sha256: sha(f.bytes), mimeType: f.mimeType });
				expect(String(meta.fileName)).toMatch(f.name);
				expect(f.bytes.subarray(0, f.magic.length).toString('latin1')).toBe(f.magic);
				// Stored where every process can read it: main (another process) serves the same bytes.
				expect(String(meta.id)).toMatch(/^database:/);
				const served = await cluster.main.rest.requestRaw('GET', `/rest/binary-data?id=${encodeURIComponent(String(meta.id))}&action=download`);
				expect({ node: f.node, status: served.status, sha256: sha(served.body), type: served.headers['content-type'] }).toEqual({
					node: f.node, status: 200, sha256: sha(f.bytes), type: expect.stringContaining(f.mimeType),
				});
				figures[f.mimeType] = { bytes: f.bytes.length, id: String(meta.id).replace(/[^:]+$/, '…') };
			}
			// The files of this execution, in Postgres (n8n's `binary_data` table).
			const stored = await cluster.sql(`select "mimeType", "fileName", "fileSize" from binary_data where "sourceType" = 'execution' and "sourceId" = '${run.id}' order by "createdAt"`);
			expect(stored.split('\n').map((l) => l.split('\t')[0])).toEqual(expect.arrayContaining(['audio/wav', 'application/pdf', 'text/csv']));
			recordFigures('binary data', { mode: 'database (the queue-mode default in n8n 2.40)', worker, files: figures, storedInPostgres: stored.split('\n') });
		});
	});

	describe('self-registering webhooks: created once, kept across restarts, deleted on deactivation', () => {
		const registrations = async () => await admin().requests({ api: 'convai', method: 'POST', pathPrefix: '/convai/v1/webhooks' });
		const deletions = async () => await admin().requests({ api: 'convai', method: 'DELETE', pathPrefix: '/convai/v1/webhooks' });
		let hook: Record<string, any>;
		let before: { ids: string[]; posts: number };

		/** One conversation for the test agent: the delivery is answered 200 by the webhook processor (the secret still matches). */
		const deliveredAfter = async (what: string) => {
			const answer = await until(`a delivered conversation.initiating after ${what}`, async () => {
				const a = await admin().post('/convai/conversations', { agent_id: AGENTS.hook, completed: false });
				return a.deliveries?.[0]?.outcome === 'delivered' ? a : undefined;
			}, 120_000, 1000);
			expect(answer.deliveries[0].response.status).toBe(200);
		};
		const unchanged = async (what: string) => {
			const now = await agentWebhooks(admin());
			expect({ what, ids: now.map((w) => w.webhook_id).sort(), posts: (await registrations()).length, deletes: (await deletions()).length }).toEqual({
				what, ids: before.ids, posts: before.posts, deletes: 0,
			});
		};

		test('activation registered exactly one webhook for the agent, at the webhook processor', async () => {
			const hooks = (await agentWebhooks(admin())).filter((w) => w.agent_id === AGENTS.hook);
			expect(hooks).toHaveLength(1);
			hook = hooks[0];
			expect(hook.url).toMatch(new RegExp(`^${cluster.webhookBaseUrl}/webhook/[0-9a-f-]{36}/voice-agent$`));
			const posts = (await registrations()).filter((r) => r.body?.agent_id === AGENTS.hook);
			expect(posts).toEqual([expect.objectContaining({ status: 201 })]);
			before = { ids: (await agentWebhooks(admin())).map((w) => w.webhook_id).sort(), posts: (await registrations()).length };
			await deliveredAfter('activation');
		});

		const restarts: Array<[string, ProcessName[], boolean]> = [
			['main, stopped gracefully (SIGTERM) and started', ['main'], false],
			['main, killed (SIGKILL) and started', ['main'], true],
			['both workers, one after the other', ['worker1', 'worker2'], false],
			['the webhook processor', ['webhook1'], false],
		];
		test.each(restarts)('restarting %s: no second registration, no deletion, deliveries still answered', async (what, names, kill) => {
			for (const name of names) {
				const logged = cluster.logs(name).length;
				const t = await cluster.restart(name, { kill });
				console.log(`${name} ${kill ? 'killed' : 'stopped'} in ${t.downMs} ms, ready again in ${t.upMs} ms`);
				// What the process still considered running when it was asked to stop (n8n logs it while shutting down).
				const waiting = [...cluster.logs(name).slice(logged).matchAll(/Waiting for (\d+) active executions to finish/g)].map((m) => Number(m[1]));
				const unfinished = (await allExecutions(cluster)).filter((e) => ['new', 'running', 'waiting'].includes(e.status)).length;
				recordFigures(`restart ${name}${kill ? ' (SIGKILL)' : ''}`, { downMs: t.downMs, upMs: t.upMs, activeExecutionsAtShutdown: waiting.length ? Math.max(...waiting) : 0, unfinishedExecutionsInDatabase: unfinished });
			}
			await signedIn(cluster);
			await deliveredAfter(what);
			await unchanged(what);
			// Main re-opened the long-running triggers, still one connection each.
			await until('PBX streams back to 2 and the test session stream back', async () => (await pbxStreams()).length === 2 && (await sessionStreams(ONCE_SESSION)).length === 1, 120_000);
			await holds('two PBX streams, one test-session stream', async () => (await pbxStreams()).length === 2 && (await sessionStreams(ONCE_SESSION)).length === 1, 3000);
		});

		test('deactivation deletes the webhook at the service', async () => {
			await signedIn(cluster);
			await cluster.main.deactivateNow(ID.hook);
			await until('the webhook deleted', async () => !(await agentWebhooks(admin())).some((w) => w.agent_id === AGENTS.hook));
			expect(await deletions()).toEqual([expect.objectContaining({ path: `/convai/v1/webhooks/${hook.webhook_id}`, status: 204 })]);
		});
	});

	test('every execution of this file ran on exactly one worker; main ran none; nothing logged a trigger problem', async () => {
		const all = await allExecutions(cluster);
		const off = all.filter((e) => cluster.processesThatRan(e.id).length !== 1 || !cluster.processesThatRan(e.id)[0].startsWith('worker'));
		expect(off).toEqual([]);
		const perWorker = cluster.executionsPerWorker();
		recordFigures('executions per worker (triggers file)', { total: all.length, perWorker });
		expect(Object.values(perWorker).every((n) => n > 0)).toBe(true);
		// The recipe session plays to its end: the Conversation Intelligence Trigger then says, where
		// n8n shows trigger problems, that the session is over (issue 18: an ended session ends). That
		// one message is expected; any other activation or trigger problem is not.
		const logs = cluster
			.allLogs()
			.split('\n')
			.filter((line) => !/Session \S+ is over \(.*this trigger has nothing more to listen to/.test(line))
			.join('\n');
		expect(logs).not.toMatch(/There was a problem (activating|with the trigger)|Failed to load package|Error loading package/i);
	});
});

/** GET with headers; the body as bytes. */
async function rawGet(url: string, headers: Record<string, string>): Promise<Buffer> {
	const http = await import('node:http');
	return await new Promise((resolve, reject) => {
		const req = http.request(url, { method: 'GET', headers: { connection: 'close', ...headers }, agent: false, timeout: 30_000 }, (res) => {
			const chunks: Buffer[] = [];
			res.on('data', (c: Buffer) => chunks.push(c));
			res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`GET ${url} answered ${res.statusCode}`))));
			res.on('error', reject);
		});
		req.on('error', reject);
		req.end();
	});
}
