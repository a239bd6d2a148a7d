/* eslint-disable
	@n8n/community-nodes/no-hardcoded-secrets
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * Each callback is checked against the callback credential as this process read it lately
 * (nodes/BulkSmsStatusTrigger/setup.ts): read once for many callbacks, whatever secret they show,
 * and again once what was read is 10 s old.
 */
import { HarnessCredentialsHelper } from '../engine/credentials';
import type { WebhookServer } from '../engine/webhook';
import { jsonReport, post, SECRET, startTrigger } from './helpers';

let server: WebhookServer;
afterEach(async () => {
	jest.restoreAllMocks();
	await server?.stop();
});

it('reads the callback credential once for many callbacks', async () => {
	const spy = jest.spyOn(HarnessCredentialsHelper.prototype, 'getDecrypted');
	server = await startTrigger();
	const before = spy.mock.calls.length; // activation reads it too
	for (let i = 0; i < 5; i++) {
		const res = await post(
			server,
			jsonReport({ gateway_session_id: String(18014398509481985n + BigInt(2 * i)) }),
		);
		expect(res.status).toBe(200);
	}
	const callbackReads = spy.mock.calls
		.slice(before)
		.filter(([, , type]) => type === 'bulkSmsCallbackApi');
	expect(callbackReads).toHaveLength(1);
});

it('takes a new secret, and refuses the old one, once what it read is 10 s old', async () => {
	const credential = { secret: SECRET };
	server = await startTrigger({ credentials: { bulkSmsCallbackApi: credential } });
	expect((await post(server, jsonReport())).status).toBe(200); // read, and kept
	credential.secret = 'a-new-secret-0f1e2d3c4b5a69788796a5b4';
	const withNew = (status: string) =>
		post(server, jsonReport({ status }), 'application/json', { token: credential.secret });
	expect((await withNew('UNDELIV')).status).toBe(401); // the service tries again later
	const later = Date.now() + 10_001;
	jest.spyOn(Date, 'now').mockImplementation(() => later);
	expect((await withNew('UNDELIV')).status).toBe(200);
	expect((await post(server, jsonReport({ status: 'EXPIRED' }))).status).toBe(401);
});

it('reads the credential no more often for callers with a wrong secret than for those with the right one', async () => {
	const spy = jest.spyOn(HarnessCredentialsHelper.prototype, 'getDecrypted');
	server = await startTrigger();
	const reads = () => spy.mock.calls.filter(([, , type]) => type === 'bulkSmsCallbackApi').length;
	const readsOf = async (token: string) => {
		const before = reads();
		for (let i = 0; i < 50; i++) {
			const body = jsonReport({ gateway_session_id: String(18014398509481985n + BigInt(2 * i)) });
			await post(server, body, 'application/json', { token });
		}
		return reads() - before;
	};
	const right = await readsOf(SECRET);
	const wrong = await readsOf('guess');
	expect(wrong).toBeLessThanOrEqual(right);
});
