import {
	validateNumberConfiguration,
	type NumberConfigurationOptions,
} from '../../../../packages/n8n-nodes-telephony-platform/nodes/WholesaleVoice/validation/routing';

import { invalid, saying, valid, type RuleCase } from './cases';

type Block = Record<string, unknown>;

const sip = (extra: Block = {}): Block => ({ type: 'sip', endpoint: 'office@sip.example.com', ...extra });
const pstn = (extra: Block = {}): Block => ({ type: 'pstn', number: '447700900123', ...extra });
const fax = (extra: Block = {}): Block => ({ type: 'fax', method: 'mail', endpoint: 'fax@example.com', ...extra });

const check = (configuration: unknown, options?: NumberConfigurationOptions) => () =>
	validateNumberConfiguration(configuration, options);
/** A configuration whose default routing is one stage of the given blocks. */
const stage = (...blocks: unknown[]) => check({ routing: { default: [blocks] } });
const block = (routingBlock: unknown) => stage(routingBlock);
/** The block at default[0][0]: the path most cases expect. */
const first = (key: string) => `routing.default[0][0].${key}`;

export const routingCases: RuleCase[] = [
	// The configuration as a whole.
	valid('configuration.object', 'a JSON object', block(sip())),
	valid('configuration.object', 'the JSON text of one', check('{"routing":{"default":[[{"type":"busy"}]]}}')),
	invalid('configuration.object', 'an array', check([{ routing: {} }]), 'configuration'),
	saying(/not valid JSON/, invalid('configuration.object', 'text that is not JSON', check('{routing:'), 'configuration')),
	invalid('configuration.object', 'an empty string', check('  '), 'configuration'),
	invalid('configuration.object', 'nothing at all', check(undefined), 'configuration'),

	valid(
		'configuration.known-sections',
		'all four sections',
		check({
			routing: { default: [[sip()]], night: [[{ type: 'busy' }]] },
			options: {},
			rules: { night: [] },
			meta: { key: 'customer-42' },
		}),
	),
	saying(
		/meta/,
		invalid('configuration.known-sections', 'a custom section', check({ routing: { default: [[sip()]] }, customer: { id: 42 } }), 'customer'),
	),
	invalid('configuration.known-sections', 'a misspelt section', check({ routing: { default: [[sip()]] }, Meta: {} }), 'Meta'),

	valid('configuration.options.object', 'an object of options', check({ routing: { default: [[sip()]] }, options: { anything: 'x' } })),
	valid('configuration.options.object', 'null options', check({ routing: { default: [[sip()]] }, options: null })),
	valid('configuration.options.object', 'an empty array (PHP\'s empty object, as the API reads back)', check({ routing: { default: [[sip()]] }, options: [] })),
	invalid('configuration.options.object', 'an array', check({ routing: { default: [[sip()]] }, options: ['fast'] }), 'options'),
	invalid('configuration.options.object', 'text', check({ routing: { default: [[sip()]] }, options: 'fast' }), 'options'),

	valid('configuration.rules.object', 'an empty rules object', check({ routing: { default: [[sip()]] }, rules: {} })),
	valid('configuration.rules.object', 'an empty array (PHP\'s empty object)', check({ routing: { default: [[sip()]] }, rules: [] })),
	invalid('configuration.rules.object', 'an array', check({ routing: { default: [[sip()]] }, rules: [['x']] }), 'rules'),

	valid(
		'configuration.rules.name',
		'a-z, digits and _ (the public docs\' own mon__fri_0700__1700), of any length',
		check({ routing: { default: [[sip()]] }, rules: { mon__fri_0700__1700: [], officehours: [], ['r'.repeat(64)]: [] } }),
	),
	invalid('configuration.rules.name', 'a capital letter and a dash (Office-Hours)', check({ routing: { default: [[sip()]] }, rules: { 'Office-Hours': [] } }), 'rules.Office-Hours'),
	invalid('configuration.rules.name', 'capitals only (Night)', check({ routing: { default: [[sip()]] }, rules: { Night: [] } }), 'rules.Night'),
	invalid('configuration.rules.name', 'a dash (night-shift)', check({ routing: { default: [[sip()]] }, rules: { 'night-shift': [] } }), 'rules.night-shift'),
	invalid('configuration.rules.name', 'a space', check({ routing: { default: [[sip()]] }, rules: { 'night shift': [] } }), 'rules["night shift"]'),
	invalid('configuration.rules.name', 'a dot', check({ routing: { default: [[sip()]] }, rules: { 'night.shift': [] } }), 'rules["night.shift"]'),
	invalid('configuration.rules.name', 'an accented letter', check({ routing: { default: [[sip()]] }, rules: { 'été': [] } }), 'rules["été"]'),
	invalid('configuration.rules.name', 'an empty name', check({ routing: { default: [[sip()]] }, rules: { '': [] } }), 'rules[""]'),

	valid('configuration.rules.array', 'a rule with entries', check({ routing: { default: [[sip()]] }, rules: { night: [{ dow: [6, 7] }] } })),
	invalid('configuration.rules.array', 'a rule that is an object', check({ routing: { default: [[sip()]] }, rules: { night: { dow: [6, 7] } } }), 'rules.night'),

	valid(
		'configuration.rules.entry.object',
		'the public docs\' entries (one rule with two, times as text or numbers)',
		check({ routing: { default: [[sip()]] }, rules: { christmasholiday: [{ month: [12], day: [25, 26] }, { month: [1], day: [1, 2] }], officehours: [{ dow: [1, 2, 3, 4, 5], time: [900, '1700'] }] } }),
	),
	invalid('configuration.rules.entry.object', 'an entry that is a number', check({ routing: { default: [[sip()]] }, rules: { night: [{ dow: [6] }, 3] } }), 'rules.night[1]'),
	invalid('configuration.rules.entry.object', 'an entry that is an array', check({ routing: { default: [[sip()]] }, rules: { night: [[6, 7]] } }), 'rules.night[0]'),

	valid('configuration.rules.entry.arrays', 'one day as an array ([3])', check({ routing: { default: [[sip()]] }, rules: { wednesday: [{ dow: [3] }] } })),
	valid('configuration.rules.entry.arrays', 'conditions the docs do not list, as given', check({ routing: { default: [[sip()]] }, rules: { night: [{ from: '18:00' }] } })),
	invalid('configuration.rules.entry.arrays', 'dow as a number ({"dow":3})', check({ routing: { default: [[sip()]] }, rules: { wednesday: [{ dow: 3 }] } }), 'rules.wednesday[0].dow'),
	invalid('configuration.rules.entry.arrays', 'dow as text', check({ routing: { default: [[sip()]] }, rules: { weekdays: [{ dow: '1,2,3,4,5' }] } }), 'rules.weekdays[0].dow'),
	invalid(
		'configuration.rules.entry.arrays',
		'day, month and time as single values',
		check({ routing: { default: [[sip()]] }, rules: { christmas: [{ month: 12, day: 25, time: '0900' }] } }),
		'rules.christmas[0].month',
		{ field: 'rules.christmas[0].day', ruleId: 'configuration.rules.entry.arrays' },
		{ field: 'rules.christmas[0].time', ruleId: 'configuration.rules.entry.arrays' },
	),

	valid('configuration.meta.object', 'an object', check({ routing: { default: [[sip()]] }, meta: { crm: 'A-1' } })),
	valid('configuration.meta.object', 'null meta', check({ routing: { default: [[sip()]] }, meta: null })),
	invalid('configuration.meta.object', 'text', check({ routing: { default: [[sip()]] }, meta: 'customer 42' }), 'meta'),
	invalid('configuration.meta.object', 'an array', check({ routing: { default: [[sip()]] }, meta: [1, 2] }), 'meta'),
	valid('configuration.meta.object', 'an empty array (PHP\'s empty object, as the API reads back)', check({ routing: { default: [[sip()]] }, meta: [] })),

	// {"data":"…"} is 11 bytes plus the text.
	valid('configuration.meta.size', 'exactly 512 bytes', check({ routing: { default: [[sip()]] }, meta: { data: 'a'.repeat(501) } })),
	invalid('configuration.meta.size', '513 bytes', check({ routing: { default: [[sip()]] }, meta: { data: 'a'.repeat(502) } }), 'meta'),
	saying(
		/611 bytes/,
		invalid(
			'configuration.meta.size',
			'fewer than 512 characters that are more than 512 bytes in UTF-8',
			check({ routing: { default: [[sip()]] }, meta: { data: '€'.repeat(200) } }),
			'meta',
		),
	),

	valid('configuration.meta.key', 'a key of 40 characters', check({ routing: { default: [[sip()]] }, meta: { key: 'k'.repeat(40) } })),
	invalid('configuration.meta.key', 'a key of 41 characters', check({ routing: { default: [[sip()]] }, meta: { key: 'k'.repeat(41) } }), 'meta.key'),
	invalid('configuration.meta.key', 'a key that is a number', check({ routing: { default: [[sip()]] }, meta: { key: 42 } }), 'meta.key'),

	// routing and its structure.
	valid('routing.required', 'a configuration with routing', block({ type: 'busy' })),
	invalid('routing.required', 'a configuration without routing', check({ meta: { key: 'x' } }), 'routing'),
	invalid('routing.required', 'routing null', check({ routing: null }), 'routing'),

	valid('routing.object', 'an object keyed by default', block({ type: 'teams' })),
	invalid('routing.object', 'an array', check({ routing: [[sip()]] }), 'routing'),
	invalid('routing.object', 'text', check({ routing: 'sip' }), 'routing'),

	valid(
		'routing.key.defined',
		'default and a rule defined in rules',
		check({ routing: { default: [[sip()]], night_shift: [[{ type: 'busy' }]] }, rules: { night_shift: [] } }),
	),
	invalid('routing.key.defined', 'a rule that rules does not define', check({ routing: { default: [[sip()]], night: [[sip()]] } }), 'routing.night'),
	invalid(
		'routing.key.defined',
		'a rule name in another case',
		check({ routing: { Night: [[sip()]] }, rules: { night: [] } }),
		'routing.Night',
	),

	valid('routing.stages.array', 'two stages', check({ routing: { default: [[sip()], [pstn()]] } })),
	invalid('routing.stages.array', 'a block instead of stages', check({ routing: { default: sip() } }), 'routing.default'),

	valid('routing.not-empty', 'one default route', block(sip())),
	invalid('routing.not-empty', 'no route at all', check({ routing: {} }), 'routing'),
	valid('routing.route.stages', 'a route of one stage', block({ type: 'busy' })),
	invalid('routing.route.stages', 'a route without stages', check({ routing: { default: [] } }), 'routing.default'),
	valid('routing.stage.blocks', 'a stage of one block', block({ type: 'busy' })),
	invalid('routing.stage.blocks', 'a stage without blocks', check({ routing: { default: [[]] } }), 'routing.default[0]'),
	invalid('routing.stage.blocks', 'a second stage without blocks', check({ routing: { default: [[sip()], []] } }), 'routing.default[1]'),

	valid('routing.stage.array', 'a stage of two blocks', stage(sip(), pstn())),
	invalid('routing.stage.array', 'a block instead of a stage', check({ routing: { default: [sip()] } }), 'routing.default[0]'),
	invalid('routing.stage.array', 'text as the second stage', check({ routing: { default: [[sip()], 'busy'] } }), 'routing.default[1]'),

	valid('routing.block.object', 'an object', block({ type: 'busy' })),
	invalid('routing.block.object', 'a type name alone', block('busy'), 'routing.default[0][0]'),
	invalid('routing.block.object', 'null', block(null), 'routing.default[0][0]'),

	// Blocks.
	valid('routing.block.type', 'sip', block(sip())),
	valid('routing.block.type', 'reg', block({ type: 'reg', user: 'alice' })),
	valid('routing.block.type', 'pstn', block(pstn())),
	valid('routing.block.type', 'teams', block({ type: 'teams' })),
	valid('routing.block.type', 'fax', block(fax())),
	valid('routing.block.type', 'busy', block({ type: 'busy' })),
	invalid('routing.block.type', 'an unknown type', block({ type: 'voicemail' }), first('type')),
	invalid('routing.block.type', 'a type in capitals', block(sip({ type: 'SIP' })), first('type')),
	invalid('routing.block.type', 'a block without type', block({ endpoint: 'office@sip.example.com' }), first('type')),

	valid(
		'routing.block.known-parameters',
		'a sip block with every sip parameter, delay and timeout',
		stage(sip({ sdes: 'required', opus: 'always', zone: 'lon', delay: 2, timeout: 20 }), sip()),
	),
	valid(
		'routing.block.known-parameters',
		'a pstn block with every pstn parameter',
		block(pstn({ maxcpm: 0.05, maxcpc: 0.1, cli: '441632960000', trunk: '123456-office' })),
	),
	invalid('routing.block.known-parameters', 'a pstn parameter on a sip block', block(sip({ number: '447700900123' })), first('number')),
	invalid('routing.block.known-parameters', 'an endpoint on a teams block', block({ type: 'teams', endpoint: 'x@example.com' }), first('endpoint')),
	saying(
		/busy block \(it takes type, delay\)/,
		invalid('routing.block.known-parameters', 'a made-up parameter on a busy block', block({ type: 'busy', message: 'closed' }), first('message')),
	),
	invalid('routing.block.known-parameters', 'a sip parameter on a reg block', block({ type: 'reg', user: 'alice', zone: 'lon' }), first('zone')),

	valid('routing.block.delay', 'a delay of 5', block(sip({ delay: 5 }))),
	valid('routing.block.delay', 'a delay written as text', block(sip({ delay: '5' }))),
	invalid('routing.block.delay', 'a delay of 0', block(sip({ delay: 0 })), first('delay')),
	invalid('routing.block.delay', 'a fractional delay', block(sip({ delay: 1.5 })), first('delay')),
	invalid('routing.block.delay', 'a boolean delay', block(sip({ delay: true })), first('delay')),

	valid('routing.block.timeout', 'a timeout of 30 on sip', block(sip({ timeout: 30 }))),
	valid('routing.block.timeout', 'a timeout of 1 on teams', block({ type: 'teams', timeout: 1 })),
	invalid('routing.block.timeout', 'a timeout of 0', block(sip({ timeout: 0 })), first('timeout')),
	invalid('routing.block.timeout', 'a negative timeout', block(pstn({ timeout: -10 })), first('timeout')),
	invalid('routing.block.timeout', 'a timeout in words', block(pstn({ timeout: 'long' })), first('timeout')),

	valid('routing.block.timeout-not-on-busy-or-fax', 'a busy block after a timed sip stage', check({ routing: { default: [[sip({ timeout: 20 })], [{ type: 'busy' }]] } })),
	invalid(
		'routing.block.timeout-not-on-busy-or-fax',
		'a timeout on a busy block in the second stage',
		check({ routing: { default: [[sip({ timeout: 20 })], [{ type: 'busy', timeout: 5 }]] } }),
		'routing.default[1][0].timeout',
	),
	invalid('routing.block.timeout-not-on-busy-or-fax', 'a timeout on a fax block', block(fax({ timeout: 30 })), first('timeout')),

	valid('routing.fax-exclusive', 'a fax block alone', block(fax())),
	valid(
		'routing.fax-exclusive',
		'fax blocks under default and under a rule',
		check({
			routing: { default: [[fax()]], night: [[fax({ method: 'http', endpoint: 'https://fax.example.com/in' })]] },
			rules: { night: [] },
		}),
	),
	saying(
		/routing\.default\[0\]\[1\] \(sip\)/,
		invalid('routing.fax-exclusive', 'a fax and a sip block in one stage', stage(fax(), sip()), first('type')),
	),
	invalid(
		'routing.fax-exclusive',
		'fax under a rule and busy under default',
		check({ routing: { default: [[{ type: 'busy' }]], night: [[fax()]] }, rules: { night: [] } }),
		'routing.night[0][0].type',
	),

	// sip.
	valid('routing.sip.endpoint.required', 'a sip block with an endpoint', block(sip())),
	invalid('routing.sip.endpoint.required', 'a sip block without endpoint', block({ type: 'sip' }), first('endpoint')),
	invalid('routing.sip.endpoint.required', 'an empty endpoint', block(sip({ endpoint: '' })), first('endpoint')),

	valid('routing.sip.endpoint.form', 'user@host', block(sip({ endpoint: 'office@sip.example.com' }))),
	valid('routing.sip.endpoint.form', '%e164 with a port and ;transport=', block(sip({ endpoint: '%e164@sip.example.com:5060;transport=tcp' }))),
	valid('routing.sip.endpoint.form', '%ukn at an IPv4 host with :transport=', block(sip({ endpoint: '%ukn@192.0.2.10:5080:transport=udp' }))),
	valid('routing.sip.endpoint.form', 'an IPv6 host and TLS', block(sip({ endpoint: 'pbx+1@[2001:db8::1]:5061;transport=tls' }))),
	invalid('routing.sip.endpoint.form', 'a host without user', block(sip({ endpoint: 'sip.example.com' })), first('endpoint')),
	saying(
		/leave out the sip: prefix/,
		invalid('routing.sip.endpoint.form', 'a sip: URI', block(sip({ endpoint: 'sip:office@sip.example.com' })), first('endpoint')),
	),
	saying(
		/port 70000/,
		invalid('routing.sip.endpoint.form', 'a port above 65535', block(sip({ endpoint: 'office@sip.example.com:70000' })), first('endpoint')),
	),
	invalid('routing.sip.endpoint.form', 'an unknown transport', block(sip({ endpoint: 'office@sip.example.com;transport=sctp' })), first('endpoint')),
	invalid('routing.sip.endpoint.form', 'a space in the user', block(sip({ endpoint: 'front desk@sip.example.com' })), first('endpoint')),
	valid('routing.sip.endpoint.form', 'a substitution the contract does not name (%did, from real configurations)', block(sip({ endpoint: '%did@sip.example.com' }))),
	valid('routing.sip.endpoint.form', 'substitutions and escapes mixed', block(sip({ endpoint: 'pbx-%164%2Fx@sip.example.com' }))),
	invalid('routing.sip.endpoint.form', 'a % before no letter or digit', block(sip({ endpoint: '%@sip.example.com' })), first('endpoint')),
	invalid('routing.sip.endpoint.form', 'a % at the end of the user', block(sip({ endpoint: 'office%@sip.example.com' })), first('endpoint')),

	valid('routing.sip.sdes', 'sdes none', block(sip({ sdes: 'none' }))),
	valid('routing.sip.sdes', 'sdes optional', block(sip({ sdes: 'optional' }))),
	invalid('routing.sip.sdes', 'sdes mandatory', block(sip({ sdes: 'mandatory' })), first('sdes')),

	valid('routing.sip.zone', 'zone ny beside an unzoned endpoint', stage(sip({ zone: 'ny' }), sip())),
	invalid('routing.sip.zone', 'zone paris beside an unzoned endpoint', stage(sip({ zone: 'paris' }), sip()), first('zone')),

	valid(
		'routing.sip.zone-needs-unzoned',
		'zoned endpoints with an unzoned one in the same stage',
		stage(sip({ zone: 'lon' }), sip({ zone: 'slo' }), sip({ endpoint: 'backup@sip.example.com' })),
	),
	valid('routing.sip.zone-needs-unzoned', 'a stage without sip endpoints', stage(pstn(), { type: 'reg', user: 'alice' })),
	invalid(
		'routing.sip.zone-needs-unzoned',
		'two zoned endpoints alone',
		stage(sip({ zone: 'lon' }), sip({ zone: 'sj' })),
		first('zone'),
		{ field: 'routing.default[0][1].zone', ruleId: 'routing.sip.zone-needs-unzoned' },
	),
	invalid(
		'routing.sip.zone-needs-unzoned',
		'the unzoned endpoint in the next stage only',
		check({ routing: { default: [[sip({ zone: 'lon' })], [sip()]] } }),
		first('zone'),
	),

	// reg.
	valid('routing.reg.user', 'a user name', block({ type: 'reg', user: 'alice_01' })),
	valid('routing.reg.user', 'a reg block without user', block({ type: 'reg' })),
	invalid('routing.reg.user', 'a user with a space', block({ type: 'reg', user: 'alice smith' }), first('user')),
	invalid('routing.reg.user', 'a user with a host', block({ type: 'reg', user: 'alice@example.com' }), first('user')),

	valid('routing.reg.sdes', 'sdes required', block({ type: 'reg', user: 'alice', sdes: 'required' })),
	invalid('routing.reg.sdes', 'sdes none, which only sip offers', block({ type: 'reg', user: 'alice', sdes: 'none' }), first('sdes')),

	valid('routing.opus', 'opus only on sip', block(sip({ opus: 'only' }))),
	valid('routing.opus', 'opus never on reg', block({ type: 'reg', user: 'alice', opus: 'never' })),
	invalid('routing.opus', 'opus yes on sip', block(sip({ opus: 'yes' })), first('opus')),
	invalid('routing.opus', 'opus sometimes on reg', block({ type: 'reg', user: 'alice', opus: 'sometimes' }), first('opus')),

	// pstn.
	valid('routing.pstn.number.required', 'a pstn block with a number', block(pstn())),
	invalid('routing.pstn.number.required', 'a pstn block without number', block({ type: 'pstn' }), first('number')),

	valid('routing.pstn.number.e164', 'E.164 without a plus', block(pstn({ number: '14155550123' }))),
	valid('routing.pstn.number.e164', 'E.164 with a plus', block(pstn({ number: '+447700900123' }))),
	valid('routing.pstn.number.e164', 'the shortest E.164 in use: 7 digits (Niue)', block(pstn({ number: '+6834002' }))),
	invalid('routing.pstn.number.e164', 'six digits', block(pstn({ number: '683400' })), first('number')),
	invalid('routing.pstn.number.e164', 'sixteen digits', block(pstn({ number: '4477009001234567' })), first('number')),
	invalid('routing.pstn.number.e164', 'a UK national number', block(pstn({ number: '07700900123' })), first('number')),
	invalid('routing.pstn.number.e164', 'a number with letters', block(pstn({ number: '44CALLME' })), first('number')),

	valid('routing.pstn.maxcpm', 'a maximum of 0', block(pstn({ maxcpm: 0 }))),
	valid('routing.pstn.maxcpm', 'a maximum as decimal text', block(pstn({ maxcpm: '0.05' }))),
	invalid('routing.pstn.maxcpm', 'a negative maximum', block(pstn({ maxcpm: -1 })), first('maxcpm')),
	invalid('routing.pstn.maxcpm', 'a maximum in words', block(pstn({ maxcpm: 'cheap' })), first('maxcpm')),

	valid('routing.pstn.maxcpc', 'a connection maximum with maxcpm', block(pstn({ maxcpm: 0.05, maxcpc: 0.1 }))),
	invalid('routing.pstn.maxcpc', 'a negative connection maximum', block(pstn({ maxcpm: 0.05, maxcpc: -0.1 })), first('maxcpc')),

	valid('routing.pstn.maxcpc-needs-maxcpm', 'maxcpm alone', block(pstn({ maxcpm: 0.05 }))),
	invalid('routing.pstn.maxcpc-needs-maxcpm', 'maxcpc without maxcpm', block(pstn({ maxcpc: 0.1 })), first('maxcpc')),

	valid('routing.pstn.cli', 'a CLI with spaces and a plus', block(pstn({ cli: '+44 20 7946 0000' }))),
	invalid('routing.pstn.cli', 'a CLI in words', block(pstn({ cli: 'anonymous' })), first('cli')),

	valid('trunk.name.form', 'a pstn trunk of this account', check({ routing: { default: [[pstn({ trunk: '123456-office' })]] } }, { accountId: '123456' })),
	invalid(
		'trunk.name.form',
		"a pstn trunk of another account",
		check({ routing: { default: [[pstn({ trunk: '654321-office' })]] } }, { accountId: '123456' }),
		first('trunk'),
	),
	invalid('trunk.name.form', 'a pstn trunk without the account prefix', block(pstn({ trunk: 'office' })), first('trunk')),

	// fax.
	valid('routing.fax.method', 'method http', block(fax({ method: 'http', endpoint: 'https://fax.example.com/in' }))),
	valid('routing.fax.method', 'method mail', block(fax())),
	invalid('routing.fax.method', 'method ftp', block(fax({ method: 'ftp', endpoint: 'https://fax.example.com/in' })), first('method')),

	valid('routing.fax.endpoint', 'an e-mail address for mail', block(fax({ method: 'mail', endpoint: 'faxes@example.com' }))),
	valid('routing.fax.endpoint', 'an http URL for http', block(fax({ method: 'http', endpoint: 'http://fax.example.com/in' }))),
	valid('routing.fax.endpoint', 'a URL with no method', block({ type: 'fax', endpoint: 'https://fax.example.com/in' })),
	invalid('routing.fax.endpoint', 'a URL for mail', block(fax({ method: 'mail', endpoint: 'https://fax.example.com/in' })), first('endpoint')),
	invalid('routing.fax.endpoint', 'an e-mail address for http', block(fax({ method: 'http', endpoint: 'faxes@example.com' })), first('endpoint')),
	invalid('routing.fax.endpoint', 'neither, with no method', block({ type: 'fax', endpoint: 'the office printer' }), first('endpoint')),
	{
		...invalid('routing.fax.endpoint', 'a cloud metadata address for http', block(fax({ method: 'http', endpoint: 'http://169.254.169.254/latest' })), first('endpoint')),
		problem: /points at a cloud metadata address/,
	},
	{ ...invalid('routing.fax.endpoint', 'a loopback address for http', block(fax({ method: 'http', endpoint: 'http://127.0.0.1:8080/fax' })), first('endpoint')), problem: /points at a loopback address/ },
	{
		...invalid('routing.fax.endpoint', 'a user name before the host, with no method', block({ type: 'fax', endpoint: 'https://fax.example.com@169.254.169.254/' }), first('endpoint')),
		problem: /has a user name or password before the host/,
	},
];
