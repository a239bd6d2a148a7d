/** The forms a gateway may echo a password in: what the blanking tests feed back to the nodes. */

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
const unit = (char: string) => char.charCodeAt(0);
const utf8 = (char: string) => [...Buffer.from(char, 'utf8')];

/** Every form a gateway has been seen to (or could plausibly) echo the password in, by name. */
export function passwordForms(username: string, password: string): Array<[string, string]> {
	/** Each character escaped by `escape`, or kept when it returns undefined. */
	const each = (escape: (char: string) => string | undefined) =>
		[...password].map((char) => escape(char) ?? char).join('');
	const json = JSON.stringify(password).slice(1, -1);
	const base64 = Buffer.from(`${username}:${password}`).toString('base64');
	const hexBytes = Buffer.from(password, 'utf8').toString('hex');
	/** The password in the form `encode` gives, broken in the middle by `lineBreak`. */
	const broken = (lineBreak: string, encode = (text: string) => text) => {
		const middle = Math.floor(password.length / 2);
		return `${encode(password.slice(0, middle))}${lineBreak}${encode(password.slice(middle))}`;
	};
	const jsonOf = (text: string) => JSON.stringify(text).slice(1, -1);
	const formOf = (text: string) => new URLSearchParams({ p: text }).toString().slice(2);
	return [
		['raw', password],
		['URL-encoded (encodeURIComponent)', encodeURIComponent(password)],
		[
			'URL-encoded, lower-case hex',
			encodeURIComponent(password).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()),
		],
		['form-encoded (+ for a space)', new URLSearchParams({ p: password }).toString().slice(2)],
		[
			'every byte percent-encoded',
			each((c) =>
				utf8(c)
					.map((b) => `%${hex(b, 2).toUpperCase()}`)
					.join(''),
			),
		],
		['JSON.stringify', json],
		['JSON with \\/ (PHP)', json.replace(/\//g, '\\/')],
		[
			'JSON \\uXXXX for non-ASCII (Python)',
			each((c) => (unit(c) > 127 ? `\\u${hex(unit(c), 4)}` : c === '"' ? '\\"' : undefined)),
		],
		['JSON \\uXXXX for every character, lower-case', each((c) => `\\u${hex(unit(c), 4)}`)],
		[
			'JSON \\uXXXX for every character, upper-case',
			each((c) => `\\u${hex(unit(c), 4).toUpperCase()}`),
		],
		[
			'HTML escaped (&amp; &quot; &lt;)',
			password.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;'),
		],
		['HTML decimal entities', each((c) => `&#${unit(c)};`)],
		['HTML hex entities', each((c) => `&#x${hex(unit(c), 2).toUpperCase()};`)],
		[
			'a mix: JSON, percent and entities',
			each((c) =>
				c === '/'
					? '\\/'
					: c === ' '
						? '%20'
						: c === '&'
							? '&#38;'
							: unit(c) > 127
								? `\\u${hex(unit(c), 4).toUpperCase()}`
								: undefined,
			),
		],
		['base64 of user:password', base64],
		['base64url of user:password', Buffer.from(`${username}:${password}`).toString('base64url')],
		['base64 of user:password, JSON-escaped (PHP)', base64.replace(/\//g, '\\/')],
		['hex of its UTF-8 bytes, lower-case', hexBytes],
		['hex of its UTF-8 bytes, upper-case', hexBytes.toUpperCase()],
		['broken by a line break', broken('\n')],
		['broken by CRLF and an indent', broken('\r\n  ')],
		['JSON-escaped, broken by \\n', broken('\\n', jsonOf)],
		['JSON-escaped, broken by \\r\\n and an indent', broken('\\r\\n\\t', jsonOf)],
		['form-encoded, broken by %0D%0A', broken('%0D%0A', formOf)],
		['hex, broken by a line break', `${hexBytes.slice(0, 16)}\n${hexBytes.slice(16)}`],
	];
}
