import type { ICredentialDataDecryptedObject, INode } from 'n8n-workflow';

import { isValidTimeZone } from '../domain/zoneOffsets';
import { badBaseUrl, unknownTimeZone } from './errors';
import { secretsOf } from './secrets';

export const CREDENTIAL = 'bulkSmsApi';

export interface ServiceSettings {
	baseUrl: string;
	timeZone: string;
}

/** The credential's settings that node code needs (never the secrets), checked. */
export function settingsOf(
	node: INode,
	credentials: ICredentialDataDecryptedObject,
	itemIndex: number,
): ServiceSettings {
	const baseUrl = String(credentials.baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
	if (!/^https?:\/\/[^/]/i.test(baseUrl)) {
		throw badBaseUrl(node, baseUrl, secretsOf(credentials), itemIndex);
	}
	return { baseUrl, timeZone: timeZoneOf(node, credentials, itemIndex) };
}

/**
 * The credential's Time Zone field alone, checked. The Status Trigger reads only this: it calls
 * no service, so a Base URL it cannot use must not stop its callbacks.
 */
export function timeZoneOf(
	node: INode,
	credentials: ICredentialDataDecryptedObject,
	itemIndex: number,
): string {
	const timeZone = String(credentials.timeZone || 'UTC').trim();
	if (!isValidTimeZone(timeZone)) throw unknownTimeZone(node, timeZone, itemIndex);
	return timeZone;
}
