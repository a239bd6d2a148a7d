/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * Each request is bounded in total time (n8n's own timeout only limits the time between two
 * bytes) and in the size of the answer read, through n8n's real engine and HTTP helper.
 *
 * The peers are ad hoc servers on 127.0.0.1: the sandbox answers as the service does, not one
 * byte at a time for ever nor with a body without end. Both peers never finish on their own,
 * so a request that is not cut by the transport holds the test until jest's timeout: no timing
 * is asserted.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import {
	createServer as createTcpServer,
	type AddressInfo,
	type Server as TcpServer,
	type Socket,
} from 'node:net';

import { errorOf, outputOf, pollOnce, runWorkflow } from '../engine/harness';
import { overrideTransportLimits } from '../../nodes/shared/transport';
import { getStatus, line, send, trigger } from '../bulkSms/workflow';
import { triggerNode } from '../trigger/helpers';

const credentials = (baseUrl: string) => ({
	bulkSmsApi: { baseUrl, username: 'demo', password: 'demo-password', timeZone: 'UTC' },
});

interface Peer {
	baseUrl: string;
	requests: number;
	/** Bytes of body written before the client went away. */
	sent: number;
	/** Resolves once the client has closed every connection it opened. */
	allClosed(): Promise<void>;
	stop(): Promise<void>;
}

/** Counts open connections, so a test can wait for the client to close them all. */
function connectionTracker() {
	const open = new Set<Socket>();
	let settle: () => void = () => {};
	const track = (socket: Socket) => {
		open.add(socket);
		socket.on('close', () => {
			open.delete(socket);
			if (open.size === 0) settle();
		});
	};
	const allClosed = async () =>
		await new Promise<void>((resolve) => {
			settle = resolve;
			if (open.size === 0) resolve();
		});
	return { open, track, allClosed };
}

/**
 * Listens on 127.0.0.1 and describes the server as a Peer; `stop` runs `dropConnections` and
 * waits until the server is closed.
 */
async function listen(
	server: TcpServer,
	connections: ReturnType<typeof connectionTracker>,
	dropConnections: () => void,
): Promise<Peer> {
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		requests: 0,
		sent: 0,
		allClosed: connections.allClosed,
		stop: async () => {
			dropConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

/** An HTTP server that answers every request with `answer`, counting what it does. */
async function httpPeer(answer: (res: ServerResponse, peer: Peer) => void): Promise<Peer> {
	const connections = connectionTracker();
	const server: Server = createServer((req, res) => {
		peer.requests++;
		req.resume();
		answer(res, peer);
	});
	server.on('connection', connections.track);
	const peer = await listen(server, connections, () => server.closeAllConnections());
	return peer;
}

/** A byte every `everyMs`, for ever: each gap is far below n8n's idle timeout. */
function trickle(everyMs: number) {
	return (res: ServerResponse) => {
		res.writeHead(200, { 'Content-Type': 'application/json' });
		res.write('{');
		const timer = setInterval(() => res.write(' '), everyMs);
		res.on('close', () => clearInterval(timer));
	};
}

/** A TCP server that writes even its status line one byte at a time, for ever. */
async function headerTricklePeer(everyMs: number): Promise<Peer> {
	const connections = connectionTracker();
	const server = createTcpServer((socket) => {
		peer.requests++;
		connections.track(socket);
		const text = 'HTTP/1.1 200 OK\r\nX-Slow: ';
		let at = 0;
		const timer = setInterval(() => socket.write(text[at++] ?? 'x'), everyMs);
		socket.on('close', () => clearInterval(timer));
		socket.on('error', () => clearInterval(timer));
	});
	const peer = await listen(server, connections, () => {
		for (const socket of connections.open) socket.destroy();
	});
	return peer;
}

const MB = 1024 * 1024;

/**
 * 1 MB chunks of a JSON string (no Content-Length), as fast as the client reads, up to 256 MB:
 * without a cap a client would read it all.
 */
function endlessBody(res: ServerResponse, peer: Peer) {
	res.writeHead(200, { 'Content-Type': 'application/json' });
	res.write('{"reports":"');
	const chunk = Buffer.alloc(MB, 'x');
	const more = () => {
		while (!res.destroyed && peer.sent < 256 * MB) {
			peer.sent += chunk.length;
			if (!res.write(chunk)) return void res.once('drain', more);
		}
		if (!res.destroyed) res.end('"}');
	};
	res.on('close', () => res.destroy());
	more();
}

const sendOne = (continueOnFail = false) =>
	line(
		trigger(),
		send(
			{ destinations: '447700900120', message: 'Hi' },
			continueOnFail ? { onError: 'continueRegularOutput' } : {},
		),
	);
const getOne = () => line(trigger(), getStatus({ batchId: '123' }));

let restore: () => void;
let peer: Peer | undefined;
afterEach(async () => {
	restore();
	await peer?.stop();
	peer = undefined;
});

describe('a request takes at most the total time, its answer included', () => {
	beforeEach(() => {
		restore = overrideTransportLimits({ totalMs: 1000, firstRetryMs: 1 });
	});

	it('a Send answered one byte at a time: too slow, outcome unknown, never sent again', async () => {
		peer = await httpPeer(trickle(100));
		const failed = await runWorkflow({ ...sendOne(), credentials: credentials(peer.baseUrl) });
		expect(errorOf(failed, 'Send')?.message).toBe(
			"The service was too slow: no complete answer within 1 s, so the send's outcome is unknown",
		);
		const continued = await runWorkflow({
			...sendOne(true),
			credentials: credentials(peer.baseUrl),
		});
		expect(outputOf(continued, 'Send')[0].json).toMatchObject({
			error: expect.stringMatching(/too slow/),
			send_outcome: 'unknown',
		});
		expect(peer.requests).toBe(2);
	});

	it('a Get Status answered one byte at a time: too slow, not tried again, closed', async () => {
		peer = await httpPeer(trickle(100));
		const run = await runWorkflow({ ...getOne(), credentials: credentials(peer.baseUrl) });
		expect(errorOf(run, 'Get Status')?.message).toBe(
			'The service was too slow: no complete answer within 1 s',
		);
		expect(peer.requests).toBe(1);
		await peer.allClosed();
	});

	it('a Send whose status line comes one byte at a time: too slow, the connection closed', async () => {
		peer = await headerTricklePeer(100);
		const run = await runWorkflow({ ...sendOne(), credentials: credentials(peer.baseUrl) });
		expect(errorOf(run, 'Send')?.message).toMatch(/^The service was too slow/);
		expect(peer.requests).toBe(1);
		// Not left open behind the error (it would hold a socket for as long as the peer trickles).
		await peer.allClosed();
	});

	it('a trigger poll answered one byte at a time ends, and says why when it fails', async () => {
		peer = await httpPeer(trickle(100));
		const staticData = {};
		const persisted = {};
		const spec = {
			node: triggerNode({ batchIds: '123', emit: 'changes', emitExisting: true }),
			credentials: credentials(peer.baseUrl),
			staticData,
			persisted,
		};
		const errors: string[] = [];
		for (let poll = 0; poll < 5 && errors.length === 0; poll++) {
			const outcome = await pollOnce(spec);
			if (outcome.error) errors.push(outcome.error.message);
		}
		expect(errors).toEqual([expect.stringMatching(/too slow: no complete answer within 1 s/)]);
	});
});

describe('an answer is read up to a cap', () => {
	beforeEach(() => {
		restore = overrideTransportLimits({ maxBodyBytes: 4 * MB, firstRetryMs: 1 });
	});

	it('a Get Status answer without end: a clear error, and reading stopped near the cap', async () => {
		peer = await httpPeer(endlessBody);
		const run = await runWorkflow({ ...getOne(), credentials: credentials(peer.baseUrl) });
		expect(errorOf(run, 'Get Status')?.message).toBe(
			"The service's answer is larger than 4 MB: it was not read",
		);
		// Far below the 256 MB the peer would send: the client stopped reading.
		expect(peer.sent).toBeLessThan(64 * MB);
		expect(peer.requests).toBe(1);
	});

	it('a Send answer without end: too large, outcome unknown', async () => {
		peer = await httpPeer(endlessBody);
		const run = await runWorkflow({ ...sendOne(true), credentials: credentials(peer.baseUrl) });
		expect(outputOf(run, 'Send')[0].json).toMatchObject({
			error:
				"The service's answer is larger than 4 MB: it was not read, so the send's outcome is unknown",
			send_outcome: 'unknown',
		});
	});

	it('an answer whose Content-Length is past the cap is not read at all', async () => {
		peer = await httpPeer((res) => {
			res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': 8 * MB });
			res.write('{');
		});
		const run = await runWorkflow({ ...getOne(), credentials: credentials(peer.baseUrl) });
		expect(errorOf(run, 'Get Status')?.message).toMatch(/larger than 4 MB/);
	});
});
