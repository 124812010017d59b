import { currentTime } from '../core/clock';
import type { Router } from '../core/http';
import { HttpError } from '../core/http';
import type { WsRequest } from './context';
import { failure, isRecord, on, ok, reply, text } from './context';
import { lookupNumber, isUkMobile, isUsNumber, validateNumber } from './numbering';
import { isoOffset } from './php';
import {
	E911_FIELDS,
	configurationProblems,
	e911AddressInput,
	routedTrunks,
	smsEndpointProblems,
	uk999Problems,
	usNumberFault,
} from './rules';
import type { Account, AllocatedNumber } from './seed';
import { ACCOUNT_TYPE_LIMITS } from './seed';
import type { WholesaleSandbox } from './module';

/**
 * Numbers: allocation, the routing configuration (validated whole, kept on failure), trunk
 * association, inbound SMS, UK 999 data, US e911 registration with its own error shape and
 * codes, and number validation and lookup.
 */

// ---- e911 -----------------------------------------------------------------------------

export const E911_CODES: Record<string, number> = {
	'e911.not_enabled': 400,
	'e911.missing_field': 400,
	'e911.invalid_field': 400,
	'e911.not_found': 404,
	'e911.field_required': 400,
	'e911.field_invalid': 400,
	'e911.tn_invalid': 400,
	'e911.address_invalid': 400,
	'e911.address_not_found': 400,
	'e911.partially_applied': 500,
	'e911.retry': 503,
	'e911.upstream': 500,
	'e911.upstream_unavailable': 503,
	'e911.internal_error': 500,
};

const DEFAULT_FAULT_MESSAGES: Record<string, string> = {
	'e911.partially_applied': 'The registration was only partly applied: read the current state before repairing it',
	'e911.retry': 'The emergency-services provider is temporarily unavailable; retry',
	'e911.upstream': 'The emergency-services provider did not complete the request; it can be retried',
	'e911.upstream_unavailable': 'The request could not be delivered to the emergency-services provider; it can be retried',
	'e911.internal_error': 'An unexpected error occurred',
};

interface E911Issue {
	code: string;
	field: string | null;
	message: string;
}

function e911Failure(issues: E911Issue[], data: Record<string, unknown> = {}): HttpError {
	const status = E911_CODES[issues[0].code] ?? 400;
	return new HttpError(status, { success: false, http_code: status, errors: issues, data });
}

const MAX_LENGTHS: Record<string, number> = { name: 32, streetNum: 10, streetInfo: 48, location: 20, city: 32, state: 2, postalCode: 10, postalCodePlusFour: 4 };
const US_STATES = new Set(
	'AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC AS GU MP PR VI'.split(' '),
);

/** ZIP codes the simulated address database knows: their city, state and ZIP+4. */
const KNOWN_ZIPS: Record<string, { city: string; state: string; plusFour: string }> = {
	'20500': { city: 'Washington', state: 'DC', plusFour: '0003' },
	'10001': { city: 'New York', state: 'NY', plusFour: '2062' },
	'10118': { city: 'New York', state: 'NY', plusFour: '0110' },
	'94105': { city: 'San Francisco', state: 'CA', plusFour: '1804' },
	'60601': { city: 'Chicago', state: 'IL', plusFour: '5282' },
	'73301': { city: 'Austin', state: 'TX', plusFour: '0001' },
	'02110': { city: 'Boston', state: 'MA', plusFour: '1301' },
};

/** Buildings of several units: the address check requires `location` for them. */
const MULTI_UNIT = [{ streetNum: '350', street: /^(5th|fifth) (ave|avenue)$/i, zip: '10118' }];

/** Springfield: the ambiguous address whose candidates only the account-level check returns. */
const SPRINGFIELD_CANDIDATES = [
	{ streetNum: '100', streetInfo: 'Main St', city: 'Springfield', state: 'IL', postalCode: '62701' },
	{ streetNum: '100', streetInfo: 'Main St', city: 'Springfield', state: 'MA', postalCode: '01103' },
	{ streetNum: '100', streetInfo: 'Main St', city: 'Springfield', state: 'MO', postalCode: '65806' },
];

const ABBREVIATIONS: Array<[RegExp, string]> = [
	[/\bStreet\b/gi, 'St'], [/\bAvenue\b/gi, 'Ave'], [/\bRoad\b/gi, 'Rd'], [/\bBoulevard\b/gi, 'Blvd'],
	[/\bDrive\b/gi, 'Dr'], [/\bLane\b/gi, 'Ln'], [/\bCourt\b/gi, 'Ct'], [/\bPlace\b/gi, 'Pl'],
	[/\bParkway\b/gi, 'Pkwy'], [/\bHighway\b/gi, 'Hwy'], [/\bSquare\b/gi, 'Sq'], [/\bTerrace\b/gi, 'Ter'],
	[/\bNorthwest\b/gi, 'NW'], [/\bNortheast\b/gi, 'NE'], [/\bSouthwest\b/gi, 'SW'], [/\bSoutheast\b/gi, 'SE'],
	[/\bNorth\b/gi, 'N'], [/\bSouth\b/gi, 'S'], [/\bEast\b/gi, 'E'], [/\bWest\b/gi, 'W'],
];
const UNIT_ABBREVIATIONS: Array<[RegExp, string]> = [[/\bSuite\b/gi, 'Ste'], [/\bApartment\b/gi, 'Apt'], [/\bFloor\b/gi, 'Fl'], [/\bUnit\b/gi, 'Unit']];

/** The address as the provider provisions it: USPS abbreviations, and the ZIP+4 where known. */
export function provisionedForm(address: Record<string, string>): Record<string, string> {
	const out: Record<string, string> = { ...address };
	let street = address.streetInfo ?? '';
	for (const [pattern, short] of ABBREVIATIONS) street = street.replace(pattern, short);
	out.streetInfo = street;
	if (address.location !== undefined) {
		let location = address.location;
		for (const [pattern, short] of UNIT_ABBREVIATIONS) location = location.replace(pattern, short);
		out.location = location;
	}
	const known = KNOWN_ZIPS[address.postalCode];
	if (known && address.postalCodePlusFour === undefined) out.postalCodePlusFour = known.plusFour;
	// Same key order as the submitted address.
	const ordered: Record<string, string> = {};
	for (const field of E911_FIELDS) if (out[field] !== undefined) ordered[field] = out[field];
	return ordered;
}

function sameAddress(a: Record<string, string>, b: Record<string, string>): boolean {
	return JSON.stringify(a) === JSON.stringify(b);
}

/** The fields of the spec, trimmed, optional empties left out (as sent); other members dropped. */
function addressInput(req: WsRequest): Record<string, unknown> {
	return e911AddressInput(req.input);
}

/** The service's own field checks (before the address check). */
function fieldIssues(address: Record<string, unknown>, requireName: boolean): E911Issue[] {
	const issues: E911Issue[] = [];
	const mandatory = ['streetNum', 'streetInfo', 'city', 'state', 'postalCode'];
	if (requireName) mandatory.unshift('name');
	for (const field of E911_FIELDS) {
		const value = address[field];
		if (value === undefined || value === null || value === '') {
			if (mandatory.includes(field)) issues.push({ code: 'e911.missing_field', field, message: `${field} is required` });
			continue;
		}
		if (typeof value !== 'string') {
			issues.push({ code: 'e911.invalid_field', field, message: `${field} must be text` });
			continue;
		}
		if (value.length > MAX_LENGTHS[field]) {
			issues.push({ code: 'e911.invalid_field', field, message: `${field} must be at most ${MAX_LENGTHS[field]} characters` });
		} else if (field === 'state' && (!/^[A-Z]{2}$/.test(value) || !US_STATES.has(value))) {
			issues.push({ code: 'e911.invalid_field', field, message: `${value} is not a two-letter US state code` });
		} else if (field === 'postalCode' && value.length < 5) {
			issues.push({ code: 'e911.invalid_field', field, message: 'postalCode must be at least 5 characters' });
		} else if (field === 'postalCodePlusFour' && !/^\d{4}$/.test(value)) {
			issues.push({ code: 'e911.invalid_field', field, message: 'postalCodePlusFour must be exactly four digits, without a hyphen' });
		}
	}
	return issues;
}

interface AddressCheck {
	provisioned: Record<string, string>;
}

/**
 * The simulated address check: `#` in streetInfo and a postal code that is no ZIP code are refused, "Nowhere" streets and street
 * number 0 are not found, a known ZIP in another state is invalid (with the corrected
 * address), 100 Main St Springfield without a ZIP it knows is ambiguous (candidates only for
 * the account-level check), and 350 Fifth Ave (several units) requires `location`.
 */
function checkAddress(address: Record<string, string>, withCandidates: boolean): AddressCheck {
	if (address.streetInfo.includes('#')) {
		throw e911Failure([{ code: 'e911.field_invalid', field: 'streetInfo', message: 'The character # is not accepted in streetInfo: put units in location' }]);
	}
	// The field check only bounds the length; the address database knows US ZIP codes (ZIP, or ZIP+4 with or without the hyphen).
	if (!/^\d{5}(-?\d{4})?$/.test(address.postalCode)) {
		throw e911Failure([{ code: 'e911.field_invalid', field: 'postalCode', message: `${address.postalCode} is not a US ZIP code` }]);
	}
	if (/\bnowhere\b/i.test(address.streetInfo) || /^0+$/.test(address.streetNum)) {
		throw e911Failure([{ code: 'e911.address_not_found', field: null, message: 'No matching address was found' }]);
	}
	const known = KNOWN_ZIPS[address.postalCode];
	if (known && known.state !== address.state) {
		const corrected = provisionedForm({ ...address, city: known.city, state: known.state });
		throw e911Failure(
			[{ code: 'e911.address_invalid', field: 'state', message: `The postal code ${address.postalCode} is in ${known.state}, not ${address.state}` }],
			{ correctedAddress: corrected, ...(withCandidates ? { candidateAddresses: [corrected] } : {}) },
		);
	}
	if (/^springfield$/i.test(address.city) && /^main (st|street)$/i.test(address.streetInfo) && !['62701', '01103', '65806'].includes(address.postalCode)) {
		throw e911Failure(
			[{ code: 'e911.address_invalid', field: null, message: 'The address is ambiguous: several addresses match' }],
			withCandidates ? { candidateAddresses: SPRINGFIELD_CANDIDATES.map((c) => ({ ...c, streetNum: address.streetNum })) } : {},
		);
	}
	for (const building of MULTI_UNIT) {
		if (address.streetNum === building.streetNum && building.street.test(address.streetInfo) && address.postalCode === building.zip && !address.location) {
			throw e911Failure([{ code: 'e911.field_required', field: 'location', message: 'This building has several units: location (suite, floor) is required' }]);
		}
	}
	return { provisioned: provisionedForm(address) };
}

// ---- number helpers -------------------------------------------------------------------

function numberParam(req: WsRequest): string {
	return req.params.number.trim().replace(/^\+/, '');
}

function allocated(req: WsRequest): AllocatedNumber {
	const number = numberParam(req);
	const found = req.account.numbers.get(number);
	if (!found) throw failure(404, `Number ${number} is not allocated to account ${req.account.id}`);
	return found;
}

/** The trunks named by pstn blocks that this account does not have. */
function unknownTrunks(account: Account, config: Record<string, unknown>): string[] {
	return routedTrunks(config)
		.filter(({ trunk }) => !account.trunks.some((t) => t.name === trunk))
		.map(({ where, trunk }) => `${where}: no trunk ${trunk} on account ${account.id}`);
}

const UK999_FIELDS = ['title', 'forename', 'name', 'bussuffix', 'premises', 'thoroughfare', 'locality', 'postcode'];
export const UK999_CHARGE = 1.5;

export function numberRoutes(r: Router, m: WholesaleSandbox): void {
	const base = '/numbers/:account/allocated/:number';

	on(r, 'GET', base, (req, res) => reply(req, res, ok(allocated(req).config)));
	on(r, 'PUT', base, (req, res) => {
		const number = numberParam(req);
		const account = req.account;
		const existing = account.numbers.get(number);
		if (existing) {
			reply(req, res, ok({ number, allocated: isoOffset(existing.allocated) }));
			return;
		}
		if (!validateNumber(number).valid) throw failure(400, `${number} is not a valid E.164 number`);
		for (const other of m.data.accounts.values()) {
			if (other !== account && other.numbers.has(number)) throw failure(400, `Number ${number} is not available`);
		}
		if (isUsNumber(number) && !account.nanpa) throw failure(400, 'NANPA (US) numbering is not enabled on this account');
		const limit = ACCOUNT_TYPE_LIMITS[account.type].number_limit;
		if (account.numbers.size >= limit) throw failure(400, `The number limit of the account (${limit}) is reached`);
		const record: AllocatedNumber = { number, allocated: currentTime(), config: null, trunk: null, sms: null, uk999: null, e911: null };
		account.numbers.set(number, record);
		reply(req, res, ok({ number, allocated: isoOffset(record.allocated) }));
	});
	on(r, 'DELETE', base, (req, res) => {
		const record = allocated(req);
		req.account.numbers.delete(record.number);
		reply(req, res, ok());
	});

	on(r, 'PUT', `${base}/config`, (req, res) => {
		const record = allocated(req);
		const config: unknown = req.bodyKind === 'json' ? req.bodyJson : req.bodyKind === 'form' ? req.bodyParams : undefined;
		const errors = configurationProblems(config ?? {});
		if (!errors.length && isRecord(config)) errors.push(...unknownTrunks(req.account, config));
		// The whole configuration is refused and the one in force is kept.
		if (errors.length) throw failure(400, errors);
		record.config = structuredClone(config as Record<string, unknown>);
		reply(req, res, ok());
	});
	on(r, 'DELETE', `${base}/config`, (req, res) => {
		allocated(req).config = null;
		reply(req, res, ok());
	});

	on(r, 'GET', `${base}/trunk`, (req, res) => reply(req, res, ok({ trunk: allocated(req).trunk })));
	on(r, 'PUT', `${base}/trunk`, (req, res) => {
		const record = allocated(req);
		const trunk = text(req, 'trunk');
		if (!trunk) throw failure(400, 'trunk is required');
		if (!req.account.trunks.some((t) => t.name === trunk)) throw failure(400, `No trunk ${trunk} on account ${req.account.id}`);
		record.trunk = trunk;
		reply(req, res, ok({ trunk }));
	});
	on(r, 'DELETE', `${base}/trunk`, (req, res) => {
		allocated(req).trunk = null;
		reply(req, res, ok({ trunk: null }));
	});

	const smsNumber = (req: WsRequest) => {
		const record = allocated(req);
		if (!isUkMobile(record.number) && !isUsNumber(record.number)) {
			throw failure(400, `Inbound SMS is available only on mobile and OTT numbers; ${record.number} is neither`);
		}
		return record;
	};
	on(r, 'GET', `${base}/sms`, (req, res) => {
		const record = smsNumber(req);
		reply(req, res, ok({ mode: record.sms?.mode ?? null, endpoint: record.sms?.endpoint ?? null }));
	});
	on(r, 'PUT', `${base}/sms`, (req, res) => {
		const record = smsNumber(req);
		const mode = text(req, 'mode');
		const endpoint = text(req, 'endpoint');
		const errors = smsEndpointProblems(mode, endpoint);
		if (errors.length) throw failure(400, errors);
		record.sms = { mode: mode as 'http' | 'http_json', endpoint: endpoint as string };
		reply(req, res, ok({ ...record.sms }));
	});
	on(r, 'DELETE', `${base}/sms`, (req, res) => {
		smsNumber(req).sms = null;
		reply(req, res, ok());
	});

	const ukNumber = (req: WsRequest) => {
		const record = allocated(req);
		if (!record.number.startsWith('44')) throw failure(400, `999 data is for UK numbers; ${record.number} is not one (US numbers use e911)`);
		return record;
	};
	on(r, 'GET', `${base}/999`, (req, res) => reply(req, res, ok(ukNumber(req).uk999)));
	on(r, 'PUT', `${base}/999`, (req, res) => {
		const record = ukNumber(req);
		const data: Record<string, unknown> = {};
		for (const field of UK999_FIELDS) if (req.input[field] !== undefined) data[field] = req.input[field];
		const errors = uk999Problems(data);
		if (errors.length) throw failure(400, errors);
		const stored: Record<string, string> = {};
		for (const [key, value] of Object.entries(data)) if (value !== null && String(value).trim() !== '') stored[key] = String(value).trim();
		record.uk999 = stored;
		m.charge(req.account, UK999_CHARGE, `999 data for ${record.number}`);
		reply(req, res, ok({ ...stored }));
	});

	// e911: every check answers in the e911 error shape.
	const e911Number = (req: WsRequest): AllocatedNumber => {
		const number = numberParam(req);
		const fault = usNumberFault(number);
		if (fault === 'not_us') {
			throw e911Failure([{ code: 'e911.invalid_field', field: 'number', message: `${number} is not a US number (1 followed by 10 digits)` }]);
		}
		if (fault === 'not_nanp') throw e911Failure([{ code: 'e911.tn_invalid', field: 'number', message: `${number} is not accepted as a valid US number` }]);
		const record = req.account.numbers.get(number);
		if (!record) throw e911Failure([{ code: 'e911.not_found', field: 'number', message: `${number} is not allocated to account ${req.account.id}` }]);
		return record;
	};
	/** The admin-injected fault for the next e911 request, and the account's NANPA switch. */
	const e911Gate = (req: WsRequest): { code: string; field: string | null; message: string } | undefined => {
		const fault = m.e911Faults[0];
		if (fault) {
			fault.count -= 1;
			if (fault.count <= 0) m.e911Faults.shift();
			return { code: fault.code, field: fault.field, message: fault.message ?? DEFAULT_FAULT_MESSAGES[fault.code] ?? fault.code };
		}
		if (!req.account.nanpa) {
			throw e911Failure([{ code: 'e911.not_enabled', field: null, message: `NANPA numbering is not enabled on account ${req.account.id}` }]);
		}
		return undefined;
	};
	const e911State = (record: AllocatedNumber) =>
		record.e911
			? {
					number: record.number,
					configured: true,
					e911Status: record.e911.status,
					activatedAt: isoOffset(record.e911.activatedAt),
					address: record.e911.address,
					provisionedAddress: record.e911.provisionedAddress,
				}
			: { number: record.number, configured: false, e911Status: null, activatedAt: null, address: null, provisionedAddress: null };

	on(r, 'GET', `${base}/e911`, (req, res) => {
		const fault = e911Gate(req);
		if (fault) throw e911Failure([fault]);
		reply(req, res, ok(e911State(e911Number(req))));
	});
	on(r, 'PUT', `${base}/e911`, (req, res) => {
		const fault = e911Gate(req);
		if (fault && fault.code !== 'e911.partially_applied') throw e911Failure([fault]);
		const record = e911Number(req);
		const address = addressInput(req);
		if (fault) {
			// Partly applied: the submitted address is recorded, the provider's side is not in force.
			record.e911 = {
				address: address as Record<string, string>,
				provisionedAddress: record.e911?.provisionedAddress ?? null,
				activatedAt: currentTime(),
				status: 'Pending',
			};
			throw e911Failure([fault]);
		}
		const issues = fieldIssues(address, true);
		if (issues.length) throw e911Failure(issues);
		const sent = address as Record<string, string>;
		const { provisioned } = checkAddress(sent, false);
		record.e911 = { address: sent, provisionedAddress: provisioned, activatedAt: currentTime(), status: 'In Service' };
		reply(
			req,
			res,
			ok({ number: record.number, configured: true, result: sameAddress(sent, provisioned) ? 'valid' : 'corrected', address: sent, provisionedAddress: provisioned }),
		);
	});
	on(r, 'DELETE', `${base}/e911`, (req, res) => {
		const fault = e911Gate(req);
		if (fault) throw e911Failure([fault]);
		const record = e911Number(req);
		record.e911 = null;
		reply(req, res, ok({ number: record.number, configured: false }));
	});
	const validate = (req: WsRequest, res: Parameters<typeof reply>[1], withNumber: boolean) => {
		const fault = e911Gate(req);
		if (fault) throw e911Failure([fault]);
		if (withNumber) e911Number(req);
		const address = addressInput(req);
		if (!withNumber) delete address.name;
		const issues = fieldIssues(address, withNumber);
		if (issues.length) throw e911Failure(issues);
		const sent = address as Record<string, string>;
		const { provisioned } = checkAddress(sent, !withNumber);
		reply(req, res, ok({ result: 'valid', address: sent, correctedAddress: provisioned, candidateAddresses: [] }));
	};
	on(r, 'POST', `${base}/e911/validate`, (req, res) => validate(req, res, true));
	on(r, 'POST', '/numbers/:account/e911/validate', (req, res) => validate(req, res, false));

	on(r, 'GET', '/numbers/:account/validate/:number', (req, res) => reply(req, res, ok(validateNumber(numberParam(req)))));
	on(r, 'GET', '/numbers/:account/lookup/:number', (req, res) => {
		const number = numberParam(req);
		const found = lookupNumber(number);
		if (!found) throw failure(400, `${number} is not a valid UK number: lookup covers UK numbers only`);
		reply(req, res, { success: true, formatted: found.formatted, data: found.data });
	});
}
