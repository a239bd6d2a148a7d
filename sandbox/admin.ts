/* eslint-disable
	@n8n/community-nodes/no-restricted-imports,
	@n8n/community-nodes/require-node-api-error
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * /_sandbox/*: what the sandbox received and the test controls, as JSON, without authentication
 * (the sandbox listens on 127.0.0.1). Ids are JSON strings here: this view is for tests, not a
 * copy of the service.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CallbackFaultKind, CallbackOptions } from './callbackSettings';
import type { SandboxCore } from './core';
import { FAULT_KINDS, NO_FAULT, type FaultOptions, type QueuedFault } from './faults';
import { readBody, respondJson } from './http';
import { TEST_NUMBER_TABLE, UNASSIGNED_PREFIXES, VALID_MSISDN, type ReportStatus } from './numbers';

type Handler = (
	core: SandboxCore,
	body: unknown,
	url: URL,
	match: RegExpExecArray,
) => Promise<unknown> | unknown;

class AdminError extends Error {
	constructor(
		readonly status: number,
		message: string,
	) {
		super(message);
	}
}

function object(body: unknown): Record<string, unknown> {
	if (typeof body !== 'object' || body === null || Array.isArray(body))
		throw new AdminError(400, 'expected a JSON object');
	return body as Record<string, unknown>;
}

function clockView(core: SandboxCore) {
	const now = core.clock.now();
	const { timeZone, finalAfterMs } = core.options;
	return {
		now: new Date(now).toISOString(),
		now_ms: now,
		time_scale: core.clock.scale,
		final_after_ms: finalAfterMs,
		time_zone: timeZone,
	};
}

function moveClock(core: SandboxCore, body: unknown) {
	const b = object(body);
	if (typeof b.advance_ms === 'number') core.advance(b.advance_ms);
	else if (typeof b.now === 'string') core.setNow(Date.parse(b.now));
	else throw new AdminError(400, 'give advance_ms (number) or now (ISO date)');
	return clockView(core);
}

function queueFaults(core: SandboxCore, body: unknown) {
	const kinds = object(body).faults;
	const known: readonly string[] = [...FAULT_KINDS, NO_FAULT];
	if (!Array.isArray(kinds) || kinds.some((k) => !known.includes(k as string))) {
		throw new AdminError(400, `faults must be a list of ${known.join(', ')}`);
	}
	core.faults.queue(kinds as QueuedFault[]);
	return core.faults.current();
}

const ROUTES: Array<{ method: string; path: RegExp; run: Handler }> = [
	{
		method: 'GET',
		path: /^\/_sandbox\/batches$/,
		run: (c, _b, url) => c.received(url.searchParams.get('account') ?? undefined),
	},
	{ method: 'GET', path: /^\/_sandbox\/requests$/, run: (c) => ({ requests: c.requests() }) },
	{ method: 'GET', path: /^\/_sandbox\/accounts$/, run: (c) => ({ accounts: c.accounts() }) },
	{
		method: 'PUT',
		path: /^\/_sandbox\/accounts\/([^/]+)$/,
		run: async (c, b, _u, m) => {
			const { password, credits, callback_url, callback_format } = object(b) as {
				password?: string;
				credits?: number;
				callback_url?: string | null;
				callback_format?: 'json' | 'xml';
			};
			await c.upsertAccount({
				username: decodeURIComponent(m[1]),
				password,
				credits,
				callbackUrl: callback_url,
				callbackFormat: callback_format,
			});
			return { accounts: c.accounts() };
		},
	},
	{ method: 'GET', path: /^\/_sandbox\/callbacks$/, run: (c) => c.callbacks.view() },
	{ method: 'GET', path: /^\/_sandbox\/callbacks\/settings$/, run: (c) => c.callbacks.settings() },
	{
		method: 'PUT',
		path: /^\/_sandbox\/callbacks\/settings$/,
		run: (c, b) => {
			c.callbacks.configure(object(b) as Partial<CallbackOptions>);
			return c.callbacks.settings();
		},
	},
	{
		method: 'POST',
		path: /^\/_sandbox\/callbacks\/faults\/queue$/,
		run: (c, b) => {
			c.callbacks.queueFaults(object(b).faults as CallbackFaultKind[]);
			return c.callbacks.settings();
		},
	},
	{ method: 'GET', path: /^\/_sandbox\/faults$/, run: (c) => c.faults.current() },
	{
		method: 'PUT',
		path: /^\/_sandbox\/faults$/,
		run: (c, b) => {
			c.setFaults(object(b) as Partial<FaultOptions>);
			return c.faults.current();
		},
	},
	{ method: 'POST', path: /^\/_sandbox\/faults\/queue$/, run: queueFaults },
	{ method: 'GET', path: /^\/_sandbox\/clock$/, run: clockView },
	{ method: 'POST', path: /^\/_sandbox\/clock$/, run: moveClock },
	{
		method: 'POST',
		path: /^\/_sandbox\/messages\/(\d+)$/,
		run: async (c, b, _u, m) => {
			await c.forceStatus(m[1], object(b).status as ReportStatus);
			return { gateway_session_id: m[1], status: object(b).status };
		},
	},
	{
		method: 'GET',
		path: /^\/_sandbox\/test-numbers$/,
		run: (c) => ({
			valid_msisdn: VALID_MSISDN.source,
			unassigned_prefixes: UNASSIGNED_PREFIXES,
			table: TEST_NUMBER_TABLE,
			networks: c.options.networks,
		}),
	},
];

async function parseJson(req: IncomingMessage): Promise<unknown> {
	const text = await readBody(req);
	if (text === undefined) throw new AdminError(413, 'request body over 1 MB');
	if (text.trim() === '') return {};
	try {
		return JSON.parse(text);
	} catch {
		throw new AdminError(400, 'the body is not JSON');
	}
}

export async function handleAdmin(
	core: SandboxCore,
	req: IncomingMessage,
	res: ServerResponse,
	url: URL,
): Promise<void> {
	const candidates = ROUTES.filter((r) => r.path.test(url.pathname));
	const route = candidates.find((r) => r.method === req.method);
	if (!route) {
		const status = candidates.length ? 405 : 404;
		return respondJson(res, status, {
			error: `${req.method} ${url.pathname} is not an admin endpoint`,
		});
	}
	try {
		const body = req.method === 'GET' ? undefined : await parseJson(req);
		const result = await route.run(
			core,
			body,
			url,
			route.path.exec(url.pathname) as RegExpExecArray,
		);
		respondJson(res, 200, result);
	} catch (error) {
		const status = error instanceof AdminError ? error.status : 400;
		respondJson(res, status, { error: (error as Error).message });
	}
}
