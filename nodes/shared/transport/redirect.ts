/**
 * Where a redirect pointed, as an error may show it. No request follows a redirect (the
 * interface never redirects, and n8n would send the account's credentials along to any
 * origin), so a 3xx is a failure that names the address it gave, for the user to decide.
 */

const SHOWN_LENGTH = 100;

/**
 * The Base URL a redirect suggests: the Location's origin, with the path before the request's
 * own path when the Location ends with it (`https://new.example/v2/api/sms/send` suggests
 * `https://new.example/v2`). Never a user:password part nor a query, which may hold secrets;
 * undefined when the Location is missing or not an http(s) address.
 */
export function redirectTarget(
	location: unknown,
	baseUrl: string,
	path: string,
): string | undefined {
	if (typeof location !== 'string' || location.trim() === '') return undefined;
	let url: URL;
	try {
		url = new URL(location.trim(), `${baseUrl}${path}`);
	} catch {
		return undefined;
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
	const prefix = url.pathname.endsWith(path) ? url.pathname.slice(0, -path.length) : '';
	const target = `${url.origin}${prefix}`;
	return target.length > SHOWN_LENGTH ? `${target.slice(0, SHOWN_LENGTH)}…` : target;
}
