/**
 * A send straight to the sandbox's HTTP interface: tests, soak runs and e2e suites put batches
 * into the sandbox this way, without going through the node they have under test.
 */
import { DEMO_ACCOUNT } from './options';

export interface SendOptions {
	message?: string;
	username?: string;
	password?: string;
}

/**
 * Sends one batch and returns its batch_id as digits. The body is written by hand so commas
 * stay bare: 100,000 destinations then fit the sandbox's 1 MB limit.
 */
export async function sendDirect(
	baseUrl: string,
	destinations: readonly string[],
	options: SendOptions = {},
): Promise<string> {
	const {
		message = 'Hello',
		username = DEMO_ACCOUNT.username,
		password = DEMO_ACCOUNT.password,
	} = options;
	const destination = destinations.map(encodeURIComponent).join(',');
	const res = await fetch(`${baseUrl}/api/sms/send`, {
		method: 'POST',
		headers: {
			Authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
			Accept: 'application/json',
			'Content-Type': 'application/x-www-form-urlencoded',
		},
		body: `message=${encodeURIComponent(message)}&destination=${destination}`,
	});
	const text = await res.text();
	// batch_id exceeds 2^53: read its digits from the text, never through a number.
	const id = /"batch_id"\s*:\s*(\d+)/.exec(text);
	if (res.status !== 200 || !id)
		throw new Error(`send not accepted: ${res.status} ${text.slice(0, 200)}`);
	return id[1];
}
