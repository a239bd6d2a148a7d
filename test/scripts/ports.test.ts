/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * scripts/ports.ts: a port handed to a server that binds it later is never one an outgoing
 * connection can take meanwhile, and never handed out twice.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';

import { freePort } from '../../scripts/ports';

const [ephemeralStart] = fs
	.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
	.trim()
	.split(/\s+/)
	.map(Number);

it('hands out distinct ports below the ephemeral range, each one free to bind', async () => {
	const ports: number[] = [];
	for (let index = 0; index < 300; index++) ports.push(await freePort());
	expect(new Set(ports).size).toBe(ports.length);
	expect(ports.every((port) => port < ephemeralStart)).toBe(true);
	const server = net.createServer();
	await new Promise<void>((resolve) => server.listen(ports[0], '127.0.0.1', resolve));
	await new Promise((resolve) => server.close(resolve));
});
