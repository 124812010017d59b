/**
 * Pure validators for the Wholesale Voice API's charged and routing-changing requests. The node
 * calls them before sending and refuses to send when they return issues. Each issue carries a
 * `ruleId` from the catalogue in `rules.ts`; `docs/wholesale-validation-rules.md` lists them.
 */
export { RULES, RULE_SUBJECTS, ruleText, isRuleId } from './rules';
export type { Rule, RuleId, RuleSubject, RuleSubjectInfo } from './rules';

export { validateNumberConfiguration, CONFIGURATION_FIELD } from './routing';
export type { NumberConfigurationOptions } from './routing';

export { validateUk999, UK999_FIELD } from './uk999';
export type { EndUserKind } from './uk999';

export { validateE911Address, validateUsNumber, normaliseE911Address, E911_FIELD } from './e911';
export type { E911Address, E911AddressOptions } from './e911';

export { validatePortSubmission, PORT_FIELD, PORT_MAX_LINES } from './port';
export type { PortSubmissionOptions } from './port';

export {
	validateAccountTypeChange,
	validateChannelLimits,
	validateTrunkName,
	validateTrunkType,
	validateTrunkDeletion,
	validateTrunkRateLimit,
	validateTrunkUpdate,
	validateLatestCount,
	validateReportDate,
	validateCdrPeriod,
	validateNotificationHistoryPeriod,
	validateNotificationRecipient,
	validateChannelHistoryInterval,
	validateSmsEndpoint,
} from './account';
