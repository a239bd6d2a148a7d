/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * Free loopback ports for the servers a test or script starts (n8n, its workers, Postgres, Redis,
 * a webhook receiver). The server binds its port seconds later, so the port is chosen below the
 * kernel's ephemeral range: there, no outgoing connection (n8n to Postgres, Redis or the sandbox)
 * can take it as its own end meanwhile, as one did to a queue-mode worker in CI ("Port … is
 * already in use"). A port is handed out once per process; across processes, a random pick and a
 * bind check keep them apart.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';

const LOWEST = 20_000;
const TRIES = 200;
const handedOut = new Set<number>();

export async function freePort(): Promise<number> {
	const highest = ephemeralStart() - 1;
	if (highest - LOWEST < 1000) return kernelsChoice();
	for (let attempt = 0; attempt < TRIES; attempt++) {
		const port = LOWEST + Math.floor(Math.random() * (highest - LOWEST + 1));
		if (handedOut.has(port)) continue;
		handedOut.add(port); // before the check: calls made at once never pick the same port
		if (await canListen(port)) return port;
	}
	throw new Error(`no free loopback port in ${LOWEST}-${highest} after ${TRIES} tries`);
}

/** The first port the kernel gives outgoing connections (Linux; 32768 where it cannot be read). */
function ephemeralStart(): number {
	try {
		const range = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8');
		return Number(range.trim().split(/\s+/)[0]) || 32_768;
	} catch {
		return 32_768;
	}
}

function canListen(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const server = net.createServer();
		server.once('error', () => resolve(false));
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
	});
}

/** Where no range below the ephemeral one is left: the kernel's pick, never handed out twice here. */
async function kernelsChoice(): Promise<number> {
	for (;;) {
		const port = await new Promise<number>((resolve, reject) => {
			const server = net.createServer();
			server.once('error', reject);
			server.listen(0, '127.0.0.1', () => {
				const { port } = server.address() as net.AddressInfo;
				server.close(() => resolve(port));
			});
		});
		if (!handedOut.has(port)) {
			handedOut.add(port);
			return port;
		}
	}
}
