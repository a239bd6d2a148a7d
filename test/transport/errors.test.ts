/**
 * The transport's error wording on its own (nodes/shared/transport/errors.ts): each failure's
 * message and class, for a send and for a read, and no secret in any of its texts.
 */
import type { INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
	badBaseUrl,
	networkFailure,
	restated,
	SendOutcomeUnknownError,
	statusFailure,
	tooLarge,
	tooSlow,
	unreadableAnswer,
	type Reporter,
} from '../../nodes/shared/transport/errors';
import { blankedReason } from '../../nodes/shared/transport/excerpts';
import { concernsAccount, failureKind } from '../../nodes/shared/transport/failureKinds';
import { secretsOf } from '../../nodes/shared/transport/secrets';

const node: INode = {
	id: 'n',
	name: 'Bulk SMS',
	type: 'n8n-nodes-bulk-sms.bulkSms',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};
const PASSWORD = 's3cr/t pw';
const secrets = secretsOf({ username: 'alice', password: PASSWORD });
const reporter = (call: Reporter['call']): Reporter => ({
	node,
	call,
	shownBaseUrl: 'https://sms.example.com',
	path: call.kind === 'send' ? '/api/sms/send' : '/api/sms/get_status',
	secrets,
});
const SEND = reporter({ kind: 'send' });
const READ = reporter({ kind: 'status', batchId: '123' });
const echo = `{"error":"denied for ${encodeURIComponent(PASSWORD)}"}`;
const redirect = (statusCode: number, location?: string) => ({
	statusCode,
	body: echo,
	headers: location === undefined ? {} : { location },
});

describe('each failure, for a send and for a read', () => {
	it.each<[string, (r: Reporter) => NodeApiError, string, boolean]>([
		// name, failure, message for a read, a send's outcome is unknown
		[
			'401',
			(r) => statusFailure(r, { statusCode: 401, body: echo }),
			'The service refused the credentials (HTTP 401)',
			false,
		],
		[
			'429',
			(r) => statusFailure(r, { statusCode: 429, body: echo }),
			'The service is rate limiting requests (HTTP 429)',
			false,
		],
		[
			'500',
			(r) => statusFailure(r, { statusCode: 500, body: echo }),
			'The service failed (HTTP 500)',
			true,
		],
		[
			'503',
			(r) => statusFailure(r, { statusCode: 503, body: echo }),
			'The service failed (HTTP 503)',
			false,
		],
		[
			'a 301 to another origin',
			(r) => statusFailure(r, redirect(301, 'https://other.example/api/sms/send')),
			'The Base URL redirects to https://other.example (HTTP 301): not followed',
			false,
		],
		[
			'a 303 (it may answer a send carried out)',
			(r) => statusFailure(r, redirect(303, 'https://other.example/done')),
			'The Base URL redirects to https://other.example (HTTP 303): not followed',
			true,
		],
		[
			'418',
			(r) => statusFailure(r, { statusCode: 418, body: echo }),
			'The service answered HTTP 418',
			false,
		],
		[
			'an unreadable 200',
			(r) => unreadableAnswer(r, { statusCode: 200, body: echo }, 'it is neither JSON nor XML'),
			"The service's answer could not be read: it is neither JSON nor XML",
			true,
		],
		[
			'a refused connection',
			(r) => networkFailure(r, 'ECONNREFUSED'),
			'Cannot reach the Bulk SMS service',
			false,
		],
		[
			'too slow',
			(r) => tooSlow(r, 60_000),
			'The service was too slow: no complete answer within 60 s',
			true,
		],
		[
			'too large',
			(r) => tooLarge(r, 200, 256 * 1024 * 1024),
			"The service's answer is larger than 256 MB: it was not read",
			true,
		],
	])('%s', (_name, fail, message, unknownForSend) => {
		const read = fail(READ);
		expect(read.message).toBe(message);
		expect(read).not.toBeInstanceOf(SendOutcomeUnknownError);
		const sent = fail(SEND);
		expect(sent instanceof SendOutcomeUnknownError).toBe(unknownForSend);
		for (const error of [read, sent]) {
			const texts = JSON.stringify([error.message, error.description, error.context, error]);
			expect(texts).not.toContain(encodeURIComponent(PASSWORD));
			expect(texts).not.toContain(PASSWORD);
		}
	});

	it('a connection that broke after the send was written: outcome unknown', () => {
		const error = networkFailure(SEND, 'ECONNRESET');
		expect(error).toBeInstanceOf(SendOutcomeUnknownError);
		expect(error.message).toBe(
			"The send's outcome is unknown: the connection broke after the request was sent",
		);
	});

	it('a 404 of Get Status names both causes; a 404 of Send names the Base URL', () => {
		expect(statusFailure(READ, { statusCode: 404, body: '' }).message).toBe(
			'Not found (HTTP 404): either the service does not know batch 123, or the Base URL points somewhere that is not the Bulk SMS service (it must be the address without /api/sms)',
		);
		expect(statusFailure(SEND, { statusCode: 404, body: '' }).message).toBe(
			'Nothing answers at https://sms.example.com/api/sms/send (HTTP 404): the Base URL must be the Bulk SMS service address, without /api/sms',
		);
	});

	it('a 404 of Get Status answered with a web page or text is the path, not a batch', () => {
		for (const body of ['<!DOCTYPE html><html><body>Not Found</body></html>', 'Not Found']) {
			expect(statusFailure(READ, { statusCode: 404, body }).message).toBe(
				'Nothing answers at https://sms.example.com/api/sms/get_status (HTTP 404): the Base URL must be the Bulk SMS service address, without /api/sms',
			);
		}
	});

	it('an excerpt is one line of at most 120 characters, blanked before it is cut', () => {
		const body = `${' \n'.repeat(500)}${'a'.repeat(110)} ${PASSWORD} ${'b'.repeat(500)}`;
		const description = statusFailure(READ, { statusCode: 500, body }).description ?? '';
		expect(description).toBe(`It answered: ${'a'.repeat(110)} *** bbbbb…`);
	});

	it('a Base URL that is not http(s) is shown without its user:password', () => {
		const error = badBaseUrl(node, `ftp://alice:${PASSWORD}@sms.example.com`, secrets, 0);
		expect(error.description).toBe(
			'Set it to the service address, e.g. https://sms.example.com (got "ftp://***@sms.example.com").',
		);
	});
});

describe('a redirect names the address it gave, and nothing else of it', () => {
	it.each([
		// Location, for a send to https://sms.example.com, the address shown
		['https://u:pw@other.example:8443/api/sms/send?token=t#f', 'https://other.example:8443'],
		['https://other.example/v2/api/sms/send', 'https://other.example/v2'],
		['/v2/api/sms/send?session=s', 'https://sms.example.com/v2'],
		['http://other.example/login?next=/api/sms/send', 'http://other.example'],
		[`https://${'x'.repeat(120)}.example/`, `https://${'x'.repeat(92)}…`],
	])('%s: %s', (location, shown) => {
		const error = statusFailure(SEND, redirect(302, location));
		expect(error.message).toBe(
			`The Base URL redirects to ${shown} (HTTP 302): not followed, so the send's outcome is unknown`,
		);
		expect(error.description).toContain(`If ${shown} is your provider's service address`);
	});

	it.each([undefined, '', 'javascript:alert(1)', 'http://[bad'])(
		'a Location %p is no address to suggest',
		(location) => {
			const error = statusFailure(READ, redirect(307, location));
			expect(error.message).toBe(
				'The Base URL redirects (HTTP 307) without a usable address: not followed',
			);
			expect(error.description).toBe(
				"The Bulk SMS service never redirects. Check the Base URL in the Bulk SMS credential (now https://sms.example.com): it must be the service's own address.",
			);
		},
	);
});

describe("the service's reason for refusing a send", () => {
	it('is blanked, and cut to 2,000 characters when longer', () => {
		expect(blankedReason(`bad password ${PASSWORD}`, secrets)).toBe('bad password ***');
		const long = blankedReason(`${'r'.repeat(1995)}${PASSWORD}${'r'.repeat(5_000_000)}`, secrets);
		expect(long).toBe(`${'r'.repeat(1995)}***rr…`);
	});
});

describe('failures that concern the account, not a batch', () => {
	const PAGE = '\n  <!doctype HTML><html><body>Welcome</body></html>';
	it.each<[string, () => NodeApiError, boolean]>([
		['401', () => statusFailure(READ, { statusCode: 401, body: echo }), true],
		['403', () => statusFailure(READ, { statusCode: 403, body: '' }), true],
		['404 in JSON: the service', () => statusFailure(READ, { statusCode: 404, body: echo }), false],
		['404 with no body', () => statusFailure(READ, { statusCode: 404, body: '' }), false],
		['404, a web page', () => statusFailure(READ, { statusCode: 404, body: PAGE }), true],
		['404, plain text', () => statusFailure(READ, { statusCode: 404, body: 'Not Found' }), true],
		['405, a web page', () => statusFailure(READ, { statusCode: 405, body: PAGE }), true],
		['502, a web page', () => statusFailure(READ, { statusCode: 502, body: PAGE }), false],
		['500', () => statusFailure(READ, { statusCode: 500, body: echo }), false],
		['200, a web page', () => unreadableAnswer(READ, { statusCode: 200, body: PAGE }, 'x'), true],
		[
			'200 in JSON without reports',
			() => unreadableAnswer(READ, { statusCode: 200, body: '{}' }, 'no reports field'),
			false,
		],
		['refused', () => networkFailure(READ, 'ECONNREFUSED'), true],
		['no such host', () => networkFailure(READ, 'ENOTFOUND'), true],
		['DNS failing', () => networkFailure(READ, 'EAI_AGAIN'), true],
		['a certificate', () => networkFailure(READ, 'CERT_HAS_EXPIRED'), true],
		['a reset connection', () => networkFailure(READ, 'ECONNRESET'), false],
		['too slow', () => tooSlow(READ, 60_000), false],
	])('%s', (_name, fail, expected) => {
		expect(concernsAccount(fail())).toBe(expected);
	});

	it('a web page answered with 200 is said to be one', () => {
		const error = unreadableAnswer(READ, { statusCode: 200, body: PAGE }, 'the XML root is <html>');
		expect(error.message).toBe("The service's answer could not be read: it is an HTML page");
	});

	it('how a request failed is the same for any batch', () => {
		const other: Reporter = { ...READ, call: { kind: 'status', batchId: '456' } };
		for (const fail of [
			(r: Reporter) => statusFailure(r, { statusCode: 404, body: echo }),
			(r: Reporter) => networkFailure(r, 'ECONNRESET'),
			(r: Reporter) => tooSlow(r, 60_000),
		]) {
			expect(failureKind(fail(READ))).toBe(failureKind(fail(other)));
		}
		expect(failureKind(statusFailure(READ, { statusCode: 500, body: '' }))).toBe('HTTP 500');
		expect(failureKind(networkFailure(READ, 'ECONNRESET'))).toBe('network ECONNRESET');
	});
});

describe('restated: a failure said again where it stops a node', () => {
	it('is a new error of the same class, HTTP code, details and item; the cause is left as made', () => {
		const cause = networkFailure({ ...SEND, itemIndex: 3 }, 'ECONNRESET');
		const before = {
			message: cause.message,
			description: cause.description,
			context: { ...cause.context },
		};
		const said = restated(cause, {
			description: `${cause.description} And the run's account.`,
			context: { items: [{ item: 3 }] },
		});
		expect(said).not.toBe(cause);
		expect(said).toBeInstanceOf(SendOutcomeUnknownError);
		expect(said.message).toBe(cause.message);
		expect(said.description).toBe(`${before.description} And the run's account.`);
		expect(said.context).toEqual({ itemIndex: 3, items: [{ item: 3 }] });
		expect(said.errorResponse).toEqual(cause.errorResponse);
		expect({
			message: cause.message,
			description: cause.description,
			context: cause.context,
		}).toEqual(before);
		const refused = restated(statusFailure(READ, { statusCode: 403, body: '' }), {
			message: 'Account',
		});
		expect([refused.message, refused.httpCode, concernsAccount(refused)]).toEqual([
			'Account',
			'403',
			true,
		]);
	});

	it('keeps a NodeOperationError one, with its item', () => {
		const cause = badBaseUrl(node, 'ftp://x', secrets, 2);
		const said = restated(cause, { message: 'Said again' });
		expect(said).toBeInstanceOf(NodeOperationError);
		expect([said.message, said.description, said.context.itemIndex]).toEqual([
			'Said again',
			cause.description,
			2,
		]);
	});
});
