/**
 * A parameter's expression split into its text and its `{{ … }}` code, where n8n splits it
 * (@n8n/tournament's splitExpression: `{{` opens, the first `}}` after it closes). Shared by
 * Send's two ways of reading an expression faster than n8n (jsonExpressions.ts,
 * sameForEveryItem.ts), so that both read the parameter as n8n cuts it.
 */

/** Text as written, or the code between one `{{` and its `}}`. */
export type TemplatePart = { text: string } | { code: string };

/**
 * The parts of an expression as saved in the workflow (`=Hi {{ $json.name }}`), or undefined for
 * anything n8n would cut otherwise: not an expression, a backslash anywhere (n8n's splitter
 * reads it as an escape), or a `{{` never closed.
 */
export function templateParts(raw: unknown): TemplatePart[] | undefined {
	if (typeof raw !== 'string' || raw[0] !== '=') return undefined;
	const template = raw.slice(1);
	if (template.includes('\\')) return undefined;
	const parts: TemplatePart[] = [];
	let at = 0;
	while (at < template.length) {
		const open = template.indexOf('{{', at);
		if (open < 0) {
			parts.push({ text: template.slice(at) });
			break;
		}
		if (open > at) parts.push({ text: template.slice(at, open) });
		const close = template.indexOf('}}', open + 2);
		if (close < 0) return undefined;
		parts.push({ code: template.slice(open + 2, close) });
		at = close + 2;
	}
	return parts;
}
