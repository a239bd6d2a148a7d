/**
 * Secret blanking on its own (nodes/shared/transport/secrets.ts): every common escaping of a
 * password, and mixes of them, is blanked; text that is not the secret is left alone.
 */
import { blankSecrets, secretsOf, withoutUserinfo } from '../../nodes/shared/transport/secrets';
import { passwordForms } from './forms';

// A space, a slash, a quote, an ampersand, a plus, a '<' and an 'é': each escaping differs.
const PASSWORD = 'pw Secret/47"&+é<11';
const SECRETS = secretsOf({ username: 'alice', password: PASSWORD });

const PASSWORD_FORMS = passwordForms('alice', PASSWORD);

describe('blankSecrets', () => {
	it.each(PASSWORD_FORMS)('blanks the password written %s', (_name, form) => {
		const text = `echo: [${form}] end`;
		expect(blankSecrets(text, SECRETS)).toMatch(/^echo: \[\*\*\*=?\] end$/);
	});

	it.each([
		['text without the secret', 'HTTP 500: {"error":"internal"}'],
		['a prefix of it', 'pw Secret/47'],
		['the user name', 'alice'],
		['escapes that decode to something else', '%41\\u0042&#67;+&amp;'],
	])('leaves %s alone', (_name, text) => {
		expect(blankSecrets(text, SECRETS)).toBe(text);
	});

	it('blanks every occurrence, and text around them stays', () => {
		expect(blankSecrets(`a${PASSWORD}b${encodeURIComponent(PASSWORD)}c`, SECRETS)).toBe(
			'a***b***c',
		);
	});

	it('reads a plus as itself or as a space, a percent escape as itself or decoded', () => {
		const plus = secretsOf({ password: 'a+b c%41' });
		expect(blankSecrets('x a+b+c%41 y', plus)).toBe('x *** y');
		expect(blankSecrets('x a%2Bb%20c%2541 y', plus)).toBe('x *** y');
	});

	it('reads a character outside the BMP in each escaping', () => {
		const emoji = secretsOf({ password: 'k😀y' });
		for (const form of [
			'k😀y',
			encodeURIComponent('k😀y'),
			'k\\ud83d\\ude00y',
			'k&#x1F600;y',
			'k&#128512;y',
		]) {
			expect(blankSecrets(`<${form}>`, emoji)).toBe('<***>');
		}
	});

	it('reads JavaScript \\xXX escapes, in either case, and leaves a short one alone', () => {
		const hexed = secretsOf({ password: 'a/b' });
		expect(blankSecrets('x a\\x2Fb \\x61\\x2f\\x62 y', hexed)).toBe('x *** *** y');
		expect(blankSecrets('a\\x2/b', hexed)).toBe('a\\x2/b');
	});

	it('reads a line break as nothing only inside the secret: the text around it stays', () => {
		expect(blankSecrets(`a\n${PASSWORD}\r\n b`, SECRETS)).toBe('a\n***\r\n b');
		expect(blankSecrets('pw Secret\n\nother', SECRETS)).toBe('pw Secret\n\nother');
		// An indent is read as nothing only after a line break, not as a space of its own.
		const word = secretsOf({ password: 'password' });
		expect(blankSecrets('pass word, pass\n  word', word)).toBe('pass word, ***');
	});

	it('looks for hex of four bytes or more, anywhere, and not for shorter hex', () => {
		const pass = secretsOf({ password: 'pass' });
		expect(blankSecrets('id 0x70617373, 170617373a, 7061737', pass)).toBe(
			'id 0x***, 1***a, 7061737',
		);
		expect(blankSecrets('616263 credits', secretsOf({ password: 'abc' }))).toBe('616263 credits');
	});

	it('blanks nothing without a password', () => {
		expect(secretsOf({ username: 'alice', password: '' })).toEqual([]);
		expect(blankSecrets('alice:', [])).toBe('alice:');
	});
});

describe('a Base URL with user:password@', () => {
	it.each([
		['http://alice:pw@sms.example.com', 'http://***@sms.example.com'],
		['ftp://alice:p/w?x#y@sms.example.com/x', 'ftp://***@sms.example.com/x'],
		['alice:pw@sms.example.com', '***@sms.example.com'],
		['https://sms.example.com/path', 'https://sms.example.com/path'],
	])('%s is shown as %s', (url, shown) => {
		expect(withoutUserinfo(url)).toBe(shown);
	});

	it('makes its password a secret, decoded', () => {
		const secrets = secretsOf({ baseUrl: 'http://alice:p%2Fw%20x@host' });
		expect(blankSecrets('echo p/w x and p%2Fw+x', secrets)).toBe('echo *** and ***');
	});
});
