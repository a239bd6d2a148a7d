/**
 * Destinations: which ones the sandbox accepts, which network they belong to, and what happens to a
 * message sent to them (the test-number table). Tests and the README both read these tables, so the
 * documentation cannot drift from the behaviour.
 */

export type ReportStatus =
	| 'ENROUTE'
	| 'DELIVRD'
	| 'EXPIRED'
	| 'DELETED'
	| 'UNDELIV'
	| 'ACCEPTD'
	| 'UNKNOWN'
	| 'REJECTD';

export const REPORT_STATUSES: readonly ReportStatus[] = [
	'ENROUTE',
	'DELIVRD',
	'EXPIRED',
	'DELETED',
	'UNDELIV',
	'ACCEPTD',
	'UNKNOWN',
	'REJECTD',
];

/**
 * When a message reaches its final state:
 * - `after-delay`: `finalAfterMs` of sandbox time after it was sent (unless its validity ends first,
 *   then it becomes EXPIRED at the end of its validity);
 * - `at-validity-end`: stays ENROUTE until its validity ends, then EXPIRED;
 * - `never`: stays ENROUTE for ever (a message whose report never arrives).
 */
export type Timing = 'after-delay' | 'at-validity-end' | 'never';

export interface TestNumberRule {
	lastDigit: string;
	status: ReportStatus;
	timing: Timing;
	meaning: string;
}

/** The outcome of a message is chosen by the last digit of its destination. */
export const TEST_NUMBER_TABLE: readonly TestNumberRule[] = [
	{ lastDigit: '0', status: 'DELIVRD', timing: 'after-delay', meaning: 'delivered' },
	{ lastDigit: '1', status: 'DELIVRD', timing: 'after-delay', meaning: 'delivered' },
	{ lastDigit: '2', status: 'DELIVRD', timing: 'after-delay', meaning: 'delivered' },
	{ lastDigit: '3', status: 'DELIVRD', timing: 'after-delay', meaning: 'delivered' },
	{ lastDigit: '4', status: 'DELIVRD', timing: 'after-delay', meaning: 'delivered' },
	{
		lastDigit: '5',
		status: 'ACCEPTD',
		timing: 'after-delay',
		meaning: 'read by the network for the user',
	},
	{ lastDigit: '6', status: 'UNDELIV', timing: 'after-delay', meaning: 'undeliverable' },
	{ lastDigit: '7', status: 'REJECTD', timing: 'after-delay', meaning: 'rejected by the network' },
	{
		lastDigit: '8',
		status: 'EXPIRED',
		timing: 'at-validity-end',
		meaning: 'ENROUTE until its validity ends, then EXPIRED',
	},
	{ lastDigit: '9', status: 'ENROUTE', timing: 'never', meaning: 'stays ENROUTE for ever' },
];

export function testNumberRule(msisdn: string): TestNumberRule {
	const last = msisdn.charAt(msisdn.length - 1);
	const rule = TEST_NUMBER_TABLE.find((r) => r.lastDigit === last);
	// Only valid MSISDNs (all digits) reach here, so a rule always exists.
	if (!rule) throw new Error(`no test-number rule for ${msisdn}`);
	return rule;
}

/**
 * A destination the sandbox can send to: international format, digits only, no leading 0,
 * 8 to 15 digits (E.164 allows 15). Anything else is dropped and makes batch_size smaller.
 */
export const VALID_MSISDN = /^[1-9][0-9]{7,14}$/;

export function isValidMsisdn(candidate: string): boolean {
	return VALID_MSISDN.test(candidate);
}

/**
 * Country codes the ITU has not assigned (280-289, 990, 997, 999). A number there looks valid to a
 * client's format check, but no network takes it, so the service drops it: the realistic way for
 * batch_size to come back smaller than what a careful client sent.
 */
export const UNASSIGNED_PREFIXES: readonly string[] = ['28', '990', '997', '999'];

/** Whether the sandbox sends to this destination; the others are dropped from the batch. */
export function isDeliverable(candidate: string): boolean {
	return isValidMsisdn(candidate) && !UNASSIGNED_PREFIXES.some((p) => candidate.startsWith(p));
}

export interface NetworkRule {
	/** Country-code prefix of the MSISDN; the longest matching prefix wins. '' matches everything. */
	prefix: string;
	networkId: number;
	/** Longest validity this network allows; a longer validity_period is clamped to it. */
	maxValidityMs: number;
}

const HOUR = 3600_000;
const DAY = 24 * HOUR;
export const DEFAULT_VALIDITY_MS = 7 * DAY;

/** Shaped like MCC+MNC codes so the ids look like real network ids, but they are sandbox values. */
export const DEFAULT_NETWORKS: readonly NetworkRule[] = [
	{ prefix: '1', networkId: 310260, maxValidityMs: 7 * DAY },
	{ prefix: '27', networkId: 65501, maxValidityMs: 2 * DAY },
	{ prefix: '31', networkId: 20404, maxValidityMs: 7 * DAY },
	{ prefix: '33', networkId: 20801, maxValidityMs: 7 * DAY },
	{ prefix: '44', networkId: 23410, maxValidityMs: 3 * DAY },
	{ prefix: '49', networkId: 26201, maxValidityMs: 1 * DAY },
	{ prefix: '61', networkId: 50501, maxValidityMs: 7 * DAY },
	{ prefix: '91', networkId: 40410, maxValidityMs: 2 * DAY },
	{ prefix: '', networkId: 90100, maxValidityMs: 7 * DAY },
];

export function networkFor(msisdn: string, networks: readonly NetworkRule[]): NetworkRule {
	let best: NetworkRule | undefined;
	for (const rule of networks) {
		if (!msisdn.startsWith(rule.prefix)) continue;
		if (!best || rule.prefix.length > best.prefix.length) best = rule;
	}
	// Without a catch-all rule an unknown country still needs a network.
	return best ?? { prefix: '', networkId: 90100, maxValidityMs: DEFAULT_VALIDITY_MS };
}
