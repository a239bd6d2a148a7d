/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * A proxy in front of the sandbox that breaks answers the way real gateways and services do,
 * by a seeded draw per request: what the sandbox's own faults cannot do (it is a correct
 * service), such as leaving reports out of an answer and listing them again later.
 */
import {
	createServer,
	request,
	type IncomingMessage,
	type Server,
	type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

import { seeded } from '../seeded';

export type AnswerFault =
	| 'error500'
	| 'error503'
	| 'drop'
	| 'garbage'
	| 'mislabel'
	| 'truncate'
	| 'trickle'
	| 'omit'
	| 'reorder';

export const ANSWER_FAULTS: readonly AnswerFault[] = [
	'error500',
	'error503',
	'drop',
	'garbage',
	'mislabel',
	'truncate',
	'trickle',
	'omit',
	'reorder',
];

export interface FaultProxy {
	baseUrl: string;
	/** Share (0 to 1) of requests that meet one of `faults`, drawn with the proxy's seed. */
	setFaults(share: number, faults?: readonly AnswerFault[]): void;
	/** How many answers met each fault so far. */
	counts(): Record<string, number>;
	stop(): Promise<void>;
}

export async function startFaultProxy(target: string, seed: number): Promise<FaultProxy> {
	const random = seeded(seed);
	const counts: Record<string, number> = {};
	let share = 0;
	let faults: readonly AnswerFault[] = ANSWER_FAULTS;
	const server = createServer((req, res) => {
		const fault = random() < share ? faults[Math.floor(random() * faults.length)] : undefined;
		if (fault) counts[fault] = (counts[fault] ?? 0) + 1;
		void forward(target, req, res, fault, random).catch(() => res.destroy());
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}`,
		setFaults: (next, kinds = ANSWER_FAULTS) => {
			share = next;
			faults = kinds;
		},
		counts: () => ({ ...counts }),
		stop: () => close(server),
	};
}

async function forward(
	target: string,
	req: IncomingMessage,
	res: ServerResponse,
	fault: AnswerFault | undefined,
	random: () => number,
): Promise<void> {
	const body = await readAll(req);
	// Faults answered before the service sees the request: it certainly did not take it.
	if (fault === 'error503') return reply(res, 503, 'busy', { 'Retry-After': '0' });
	if (fault === 'drop' && random() < 0.5) return void res.destroy();
	const answer = await pass(target, req, body);
	// Faults after the service processed the request: a send may have been taken.
	if (fault === 'drop') return void res.destroy();
	if (fault === 'error500') return reply(res, 500, '{"error":"gateway failed"}');
	const text = answer.body;
	const type = answer.type;
	if (fault === 'garbage') return reply(res, 200, '<html><body>Service unavailable</body></html>');
	if (fault === 'mislabel')
		return reply(res, answer.status, text, { 'Content-Type': 'text/plain' });
	if (fault === 'truncate')
		return reply(res, answer.status, text.slice(0, text.length >> 1), { 'Content-Type': type });
	if (fault === 'trickle') return trickle(res, answer.status, text, type);
	if (fault === 'omit' || fault === 'reorder') {
		return reply(res, answer.status, reshapeReports(text, fault, random), { 'Content-Type': type });
	}
	return reply(res, answer.status, text, { 'Content-Type': type });
}

/**
 * Leaves out or shuffles the reports of a JSON status answer, as a service that builds its
 * list lazily or pages it does. Works on the text: its ids do not survive JSON.parse.
 */
function reshapeReports(text: string, fault: 'omit' | 'reorder', random: () => number): string {
	const list = /"reports"\s*:\s*\[(.*)\]/s.exec(text);
	if (!list) return text;
	const reports = list[1].match(/\{[^{}]*\}/g) ?? [];
	const kept =
		fault === 'omit'
			? reports.filter(() => random() >= 0.3)
			: reports
					.map((report) => ({ report, key: random() }))
					.sort((a, b) => a.key - b.key)
					.map(({ report }) => report);
	return `${text.slice(0, list.index)}"reports":[${kept.join(',')}]${text.slice(list.index + list[0].length)}`;
}

/** The answer in small pieces, a few milliseconds apart: slow, but well within any timeout. */
async function trickle(
	res: ServerResponse,
	status: number,
	text: string,
	type: string,
): Promise<void> {
	res.writeHead(status, { 'Content-Type': type });
	const step = Math.max(1, Math.ceil(text.length / 5));
	for (let at = 0; at < text.length; at += step) {
		res.write(text.slice(at, at + step));
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
	res.end();
}

interface Passed {
	status: number;
	type: string;
	body: string;
}

function pass(target: string, req: IncomingMessage, body: Buffer): Promise<Passed> {
	return new Promise((resolve, reject) => {
		const upstream = request(
			`${target}${req.url}`,
			{ method: req.method, headers: { ...req.headers, host: new URL(target).host } },
			(answer) => {
				void readAll(answer).then(
					(data) =>
						resolve({
							status: answer.statusCode ?? 502,
							type: String(answer.headers['content-type'] ?? 'application/json'),
							body: data.toString('utf8'),
						}),
					reject,
				);
			},
		);
		upstream.on('error', reject);
		upstream.end(body);
	});
}

function reply(
	res: ServerResponse,
	status: number,
	body: string,
	headers: Record<string, string> = {},
): void {
	res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
	res.end(body);
}

function readAll(stream: IncomingMessage): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		stream.on('data', (chunk: Buffer) => chunks.push(chunk));
		stream.on('end', () => resolve(Buffer.concat(chunks)));
		stream.on('error', reject);
	});
}

function close(server: Server): Promise<void> {
	server.closeAllConnections();
	return new Promise((resolve) => server.close(() => resolve()));
}
