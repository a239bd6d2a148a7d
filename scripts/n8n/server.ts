/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * `n8n start` of an instance, and the HTTP calls the tests and scripts make to it: the owner's
 * session, an API key, node types, activation, executions.
 */
import type { ChildProcess } from 'node:child_process';
import { freePort } from '../ports';
import { captureOutput, killGroup, sleep } from './processes';
import type { Json, JsonObject } from './runData';

export interface Owner {
	email: string;
	password: string;
	firstName: string;
	lastName: string;
}

export const DEFAULT_OWNER: Owner = {
	email: 'owner@example.com',
	password: 'Bulk-sms-e2e-1',
	firstName: 'Demo',
	lastName: 'Owner',
};

export interface ServerOptions {
	/** fixed HTTP port (the editor script wants a stable URL); default: a free one */
	port?: number;
	/** settings for this process only (queue mode: a restart of main with other scheduler settings) */
	env?: NodeJS.ProcessEnv;
}

/**
 * What starting `n8n start` needs of an instance (instance.ts): its settings and a way to spawn
 * n8n in its user folder. Said here, so that the server stands on nothing above it.
 */
export interface ServerHost {
	env(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
	spawn(args: string[], env: NodeJS.ProcessEnv): ChildProcess;
}

export interface RequestOptions {
	body?: Json;
	/** 'cookie' (logged-in browser session), 'apiKey' (public API), or 'none' */
	auth?: 'cookie' | 'apiKey' | 'none';
}

/**
 * For `waitForExecutions`: at least `count` executions, none still running (n8n lists one before
 * its data is saved).
 */
export const settled = (count: number) => (summaries: JsonObject[]) =>
	summaries.length >= count && summaries.every((execution) => Boolean(execution.stoppedAt));

export class N8nServer {
	private cookie?: string;
	private apiKey?: string;
	private output = '';

	private constructor(
		readonly baseUrl: string,
		/** none for a server another process started (connect) */
		private readonly child?: ChildProcess,
	) {}

	/** A client of an n8n that another process started (`npm run editor`): stop() leaves it be. */
	static connect(baseUrl: string): N8nServer {
		return new N8nServer(baseUrl);
	}

	static async start(instance: ServerHost, options: ServerOptions): Promise<N8nServer> {
		const port = options.port ?? (await freePort());
		const env = instance.env({
			N8N_PORT: String(port),
			N8N_RUNNERS_BROKER_PORT: String(await freePort()),
			...options.env,
		});
		const child = instance.spawn(['start'], env);
		const server = new N8nServer(`http://127.0.0.1:${port}`, child);
		captureOutput(child, (text) => {
			server.output += text;
		});
		await server.waitReady(90_000);
		return server;
	}

	/** What the process printed so far (n8n logs to stdout). */
	get log(): string {
		return this.output;
	}

	/** Process id (and process group id) of `n8n start`. */
	get pid(): number | undefined {
		return this.child?.pid;
	}

	private async waitReady(timeoutMs: number): Promise<void> {
		const deadline = Date.now() + timeoutMs;
		while (Date.now() < deadline) {
			if (this.child && this.child.exitCode !== null) break;
			try {
				// n8n 1.x is "ready" seconds before its REST routes are: wait for the editor's first call too.
				const ready = await fetch(`${this.baseUrl}/healthz/readiness`);
				if (ready.ok && (await fetch(`${this.baseUrl}/rest/settings`)).ok) return;
			} catch {
				// not listening yet
			}
			await sleep(250);
		}
		await this.stop();
		throw new Error(
			`n8n start was not ready at ${this.baseUrl} in ${timeoutMs} ms:\n${this.output}`,
		);
	}

	async request<T = Json>(
		method: string,
		urlPath: string,
		options: RequestOptions = {},
	): Promise<T> {
		const response = await this.fetch(method, urlPath, options);
		const text = await response.text();
		if (!response.ok) throw new Error(`${method} ${urlPath} answered ${response.status}: ${text}`);
		return (text ? JSON.parse(text) : null) as T;
	}

	async fetch(method: string, urlPath: string, options: RequestOptions = {}): Promise<Response> {
		const headers: Record<string, string> = { accept: 'application/json' };
		if (options.body !== undefined) headers['content-type'] = 'application/json';
		const auth = options.auth ?? 'cookie';
		if (auth === 'cookie' && this.cookie) headers.cookie = this.cookie;
		if (auth === 'apiKey' && this.apiKey) headers['x-n8n-api-key'] = this.apiKey;
		const body = options.body === undefined ? undefined : JSON.stringify(options.body);
		return fetch(`${this.baseUrl}${urlPath}`, { method, headers, body });
	}

	/** Creates the instance owner (first start only) and keeps its session cookie. */
	async setupOwner(owner: Owner = DEFAULT_OWNER): Promise<void> {
		const response = await this.fetch('POST', '/rest/owner/setup', {
			body: { ...owner },
			auth: 'none',
		});
		if (!response.ok)
			throw new Error(`owner setup answered ${response.status}: ${await response.text()}`);
		this.keepCookie(response);
	}

	/** Logs in an existing owner (a restarted server) and keeps the session cookie. */
	async login(owner: Owner = DEFAULT_OWNER): Promise<void> {
		const response = await this.fetch('POST', '/rest/login', {
			body: { emailOrLdapLoginId: owner.email, password: owner.password },
			auth: 'none',
		});
		if (!response.ok)
			throw new Error(`login answered ${response.status}: ${await response.text()}`);
		this.keepCookie(response);
	}

	/** Uses an API key made earlier (by this instance's previous server) for the public API. */
	useApiKey(apiKey: string): void {
		this.apiKey = apiKey;
	}

	private keepCookie(response: Response): void {
		const auth = response.headers.getSetCookie().find((cookie) => cookie.startsWith('n8n-auth='));
		if (!auth) throw new Error('n8n set no n8n-auth cookie');
		this.cookie = auth.split(';')[0];
	}

	/** An API key for the public API (`/api/v1`), with every scope the owner has. */
	async createApiKey(label = 'bulk-sms-e2e'): Promise<string> {
		const scopes = await this.request<{ data: string[] }>('GET', '/rest/api-keys/scopes');
		const created = await this.request<{ data: { rawApiKey?: string; apiKey: string } }>(
			'POST',
			'/rest/api-keys',
			{
				body: { label, scopes: scopes.data, expiresAt: null },
			},
		);
		this.apiKey = created.data.rawApiKey ?? created.data.apiKey;
		return this.apiKey;
	}

	/** Node types the running n8n loaded: the editor's own listing. */
	async nodeTypes(): Promise<JsonObject[]> {
		return this.request<JsonObject[]>('GET', '/types/nodes.json');
	}

	async credentialTypes(): Promise<JsonObject[]> {
		return this.request<JsonObject[]>('GET', '/types/credentials.json');
	}

	async activateWorkflow(id: string): Promise<JsonObject> {
		return this.request<JsonObject>('POST', `/api/v1/workflows/${id}/activate`, { auth: 'apiKey' });
	}

	/**
	 * n8n 2.41 registers an activated workflow's webhooks through its publication outbox, after the
	 * API has answered: until then a POST is 404. A CORS preflight (OPTIONS with an Origin) starts
	 * nothing and lists the methods registered for the path.
	 */
	async waitForWebhook(url: string, method = 'POST'): Promise<void> {
		for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(200)) {
			const res = await fetch(url, {
				method: 'OPTIONS',
				headers: { Origin: 'http://127.0.0.1', 'Access-Control-Request-Method': method },
			});
			if (res.headers.get('access-control-allow-methods')?.includes(method)) return;
		}
		throw new Error(`${url} never took ${method}`);
	}

	async deactivateWorkflow(id: string): Promise<JsonObject> {
		return this.request<JsonObject>('POST', `/api/v1/workflows/${id}/deactivate`, {
			auth: 'apiKey',
		});
	}

	/**
	 * Makes an active polling trigger poll now. n8n polls once on activation and then on its
	 * schedule, at least a minute apart; static data survives the reactivation.
	 */
	async pollNow(id: string): Promise<void> {
		await this.deactivateWorkflow(id);
		await this.activateWorkflow(id);
	}

	/**
	 * A workflow's executions (the latest 100), newest first, as the editor lists them: id, status,
	 * stoppedAt, no run data. The editor's list reads the database. The public API's list leaves out
	 * what main counts as running, and in queue mode main can count a finished execution as running
	 * until it restarts: it waits for the job's end after enqueuing it, and misses that end when a
	 * worker is faster (n8n removes finished jobs from the queue at once). docs/queue-mode.md.
	 */
	async executionSummaries(workflowId: string): Promise<JsonObject[]> {
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		const list = await this.request<{ data: { results: JsonObject[] } }>(
			'GET',
			`/rest/executions?filter=${filter}&limit=100`,
		);
		return list.data.results.sort((a, b) => Number(b.id) - Number(a.id));
	}

	/** The same executions, each read by id with its run data. */
	async executions(workflowId: string): Promise<JsonObject[]> {
		return this.withRunData(await this.executionSummaries(workflowId));
	}

	/**
	 * Polls the summaries until `done` accepts them (the trigger runs on its own schedule), then
	 * reads those executions with their run data: once, not on every poll.
	 */
	async waitForExecutions(
		workflowId: string,
		done: (summaries: JsonObject[]) => boolean,
		timeoutMs = 90_000,
	): Promise<JsonObject[]> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const summaries = await this.executionSummaries(workflowId);
			if (done(summaries)) return this.withRunData(summaries);
			if (Date.now() > deadline) {
				const states = summaries.map(({ id, status, stoppedAt }) => ({ id, status, stoppedAt }));
				throw new Error(
					`executions of ${workflowId} not as expected after ${timeoutMs} ms: ${JSON.stringify(states)}`,
				);
			}
			await sleep(500);
		}
	}

	private withRunData(summaries: JsonObject[]): Promise<JsonObject[]> {
		return Promise.all(
			summaries.map(({ id }) =>
				this.request<JsonObject>('GET', `/api/v1/executions/${String(id)}?includeData=true`, {
					auth: 'apiKey',
				}),
			),
		);
	}

	/** Runs a workflow as the editor's Execute workflow does (mode manual); its execution id. */
	async runManually(workflowId: string, startNode = 'Start'): Promise<string> {
		const started = await this.request<{ data: { executionId: string } }>(
			'POST',
			`/rest/workflows/${workflowId}/run`,
			{ body: { triggerToStartFrom: { name: startNode } } },
		);
		return String(started.data.executionId);
	}

	/**
	 * The editor's Execute step on `nodeName`: n8n keeps the given run data of an earlier run and
	 * re-runs that node, and first the nodes named dirty (upstream nodes the user edited).
	 */
	async executeStep(
		workflowId: string,
		nodeName: string,
		earlier: { runData: Json; dirtyNodeNames: string[] },
	): Promise<string> {
		const destinationNode = { nodeName, mode: 'inclusive' };
		const started = await this.request<{ data: { executionId: string } }>(
			'POST',
			`/rest/workflows/${workflowId}/run`,
			{ body: { ...earlier, destinationNode } },
		);
		return String(started.data.executionId);
	}

	/**
	 * The editor's "Listen for test event" on a Webhook trigger: the next call of its test URL
	 * (/webhook-test/<path>) starts one run in mode manual.
	 */
	async listenForTestEvent(workflowId: string, triggerName: string): Promise<void> {
		const answer = await this.request<{ data: { waitingForWebhook?: boolean } }>(
			'POST',
			`/rest/workflows/${workflowId}/run`,
			{ body: { triggerToStartFrom: { name: triggerName } } },
		);
		if (!answer.data.waitingForWebhook) {
			throw new Error(`n8n is not listening on ${triggerName}: ${JSON.stringify(answer)}`);
		}
	}

	/**
	 * The Executions list's Retry: "with original workflow" (`loadWorkflow` false) or "with
	 * currently saved workflow" (true). n8n answers once the retry has ended.
	 */
	async retry(executionId: string, loadWorkflow: boolean): Promise<Response> {
		return await this.fetch('POST', `/rest/executions/${executionId}/retry`, {
			body: { loadWorkflow },
		});
	}

	/** Saves a change to a workflow as the editor does (its version id guards a concurrent edit). */
	async updateWorkflow(id: string, change: (workflow: JsonObject) => void): Promise<void> {
		const { data } = await this.request<{ data: JsonObject }>('GET', `/rest/workflows/${id}`);
		change(data);
		await this.request('PATCH', `/rest/workflows/${id}`, { body: data });
	}

	/** The editor's Stop of a running execution. */
	async stopExecution(executionId: string): Promise<JsonObject> {
		return this.request<JsonObject>('POST', `/rest/executions/${executionId}/stop`);
	}

	/** TERM, then KILL after `graceMs` (n8n may wait for running executions meanwhile). */
	async stop(graceMs = 5000): Promise<void> {
		if (this.child) await killGroup(this.child, graceMs);
	}

	/** `kill -9` of n8n and its task runner, as a crash or an out-of-memory kill does. */
	async crash(): Promise<void> {
		if (this.child) await killGroup(this.child, 0, 'SIGKILL');
	}
}
