/* eslint-disable
	@n8n/community-nodes/no-restricted-imports,
	@n8n/community-nodes/require-node-api-error
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * n8n in queue mode on this machine, as a user scales out: Postgres, Redis, one `n8n start` (main:
 * editor, API, triggers and polls), `n8n worker` processes (executions) and, when asked, `n8n
 * webhook` processes (production webhooks, beside main), all on free loopback ports. Each process has its own user folder with the package installed (a shared folder lets each
 * new worker's crash recovery mark other processes' executions crashed) and the same encryption key.
 *
 * Every process is a tracked process group (processes.ts): `stop()` ends them all, and so does the
 * end of the script or test run, also on Ctrl-C or failure. Facts: docs/queue-mode.md.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { N8nInstance } from './instance';
import { freePort } from '../ports';
import { captureOutput, killGroup, sleep } from './processes';
import type { JsonObject } from './runData';
import { DEFAULT_OWNER, type N8nServer } from './server';
import {
	groupMemoryMb,
	startPostgres,
	startRedis,
	type PostgresService,
	type Service,
} from './queue-services';

export interface QueueStackOptions {
	/** the package tarball, installed into every process's user folder */
	tarball: string;
	/** credentials and workflows imported (one CLI run each) while the workers start */
	credentials?: JsonObject[];
	workflows?: JsonObject[];
	workers?: number;
	/** settings for main only (a restart can change them: restartMain) */
	mainEnv?: NodeJS.ProcessEnv;
	log?: (line: string) => void;
}

/** How long each part took to come up, ms: the README's figures come from here. */
export interface StartTimings {
	/** Postgres and Redis */
	services: number;
	/** the package into each user folder */
	install: number;
	/** main ready (it creates the schema on a new database) */
	main: number;
	/** the workers ready, and the credentials and workflows imported meanwhile */
	workersAndImports: number;
	total: number;
}

/** A `n8n worker` process: its log says which executions it started. */
export class QueueWorker {
	private output = '';

	private constructor(
		readonly name: string,
		readonly instance: N8nInstance,
		private readonly child: ChildProcess,
		readonly healthUrl: string,
	) {
		captureOutput(child, (text) => {
			this.output += text;
		});
	}

	static async start(
		name: string,
		instance: N8nInstance,
		env: NodeJS.ProcessEnv = {},
	): Promise<QueueWorker> {
		const healthPort = await freePort();
		const child = instance.spawn(
			['worker'],
			instance.env({
				N8N_RUNNERS_BROKER_PORT: String(await freePort()),
				QUEUE_HEALTH_CHECK_ACTIVE: 'true',
				QUEUE_HEALTH_CHECK_PORT: String(healthPort),
				N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
				...env,
			}),
		);
		const worker = new QueueWorker(
			name,
			instance,
			child,
			`http://127.0.0.1:${healthPort}/healthz/readiness`,
		);
		await worker.waitReady(90_000);
		return worker;
	}

	get log(): string {
		return this.output;
	}

	get pid(): number | undefined {
		return this.child.pid;
	}

	get alive(): boolean {
		return this.child.exitCode === null && this.child.signalCode === null;
	}

	/** Executions this worker started (n8n logs "Worker started execution <id> (job <job>)"). */
	startedExecutions(): string[] {
		return [...this.output.matchAll(/Worker started execution (\d+)/g)].map((match) => match[1]);
	}

	private async waitReady(timeoutMs: number): Promise<void> {
		const deadline = Date.now() + timeoutMs;
		while (Date.now() < deadline && this.alive) {
			try {
				if ((await fetch(this.healthUrl)).ok) return;
			} catch {
				// not listening yet
			}
			await sleep(250);
		}
		await this.kill();
		throw new Error(`worker ${this.name} was not ready in ${timeoutMs} ms:\n${this.output}`);
	}

	/** SIGKILL, as a machine or container dies: n8n gets no chance to clean up. */
	async kill(): Promise<void> {
		await killGroup(this.child, 0, 'SIGKILL');
	}

	async stop(graceMs = 5000): Promise<void> {
		await killGroup(this.child, graceMs);
	}
}

/** A `n8n webhook` process: it receives production webhooks, as main does, and queues their executions. */
export class QueueWebhookProcess {
	private output = '';

	private constructor(
		readonly instance: N8nInstance,
		private readonly child: ChildProcess,
		readonly baseUrl: string,
	) {
		captureOutput(child, (text) => {
			this.output += text;
		});
	}

	static async start(instance: N8nInstance): Promise<QueueWebhookProcess> {
		const port = await freePort();
		const child = instance.spawn(
			['webhook'],
			instance.env({ N8N_PORT: String(port), N8N_RUNNERS_BROKER_PORT: String(await freePort()) }),
		);
		const process = new QueueWebhookProcess(instance, child, `http://127.0.0.1:${port}`);
		await process.waitReady(90_000);
		return process;
	}

	get log(): string {
		return this.output;
	}

	private async waitReady(timeoutMs: number): Promise<void> {
		const deadline = Date.now() + timeoutMs;
		while (Date.now() < deadline && this.child.exitCode === null) {
			try {
				if ((await fetch(`${this.baseUrl}/healthz/readiness`)).ok) return;
			} catch {
				// not listening yet
			}
			await sleep(250);
		}
		await this.stop(0);
		throw new Error(`n8n webhook was not ready in ${timeoutMs} ms:\n${this.output}`);
	}

	async stop(graceMs = 5000): Promise<void> {
		await killGroup(this.child, graceMs);
	}
}

export class QueueStack {
	readonly workers = new Map<string, QueueWorker>();
	readonly webhookProcesses: QueueWebhookProcess[] = [];
	/** mains a restart replaced, kept for their logs */
	private readonly stoppedMains: N8nServer[] = [];
	private apiKey = '';
	private workerCount = 0;

	private constructor(
		readonly postgres: PostgresService,
		readonly redis: Service,
		readonly mainInstance: N8nInstance,
		private readonly encryptionKey: string,
		private readonly options: QueueStackOptions,
		public main: N8nServer,
		readonly timings: StartTimings,
	) {}

	static async start(options: QueueStackOptions): Promise<QueueStack> {
		const log = options.log ?? (() => undefined);
		const started = Date.now();
		const [postgres, redis] = await startServices();
		const stopServices = () => Promise.all([postgres.stop(), redis.stop()]);
		const instances: N8nInstance[] = [];
		let startingWorkers: Array<Promise<QueueWorker>> = [];
		try {
			const servicesUp = Date.now();
			log(`postgres :${postgres.port}, redis :${redis.port} in ${servicesUp - started} ms`);
			const encryptionKey = randomBytes(24).toString('hex');
			const env = queueEnv(postgres, redis);
			const count = options.workers ?? 2;
			for (let index = 0; index <= count; index++)
				instances.push(await N8nInstance.create({ encryptionKey, env }));
			for (const instance of instances) instance.installPackage(options.tarball);
			const installed = Date.now();
			const [mainInstance, ...workerInstances] = instances;
			// Main first: it creates the schema in Postgres. Then the workers start while the CLI
			// imports (one command for the credentials, one for the workflows).
			const main = await mainInstance.startServer({ env: options.mainEnv });
			const mainUp = Date.now();
			startingWorkers = workerInstances.map((instance, index) =>
				QueueWorker.start(`worker-${index + 1}`, instance),
			);
			const [workers] = await Promise.all([
				Promise.all(startingWorkers),
				options.credentials?.length && mainInstance.importCredentials(options.credentials),
				options.workflows?.length && mainInstance.importWorkflow(options.workflows),
			]);
			const up = Date.now();
			const timings: StartTimings = {
				services: servicesUp - started,
				install: installed - servicesUp,
				main: mainUp - installed,
				workersAndImports: up - mainUp,
				total: up - started,
			};
			const stack = new QueueStack(
				postgres,
				redis,
				mainInstance,
				encryptionKey,
				options,
				main,
				timings,
			);
			for (const worker of workers) stack.workers.set(worker.name, worker);
			stack.workerCount = workers.length;
			await main.setupOwner();
			stack.apiKey = await main.createApiKey();
			log(`queue stack up in ${timings.total} ms (${JSON.stringify(timings)})`);
			return stack;
		} catch (error) {
			// Workers are processes of their own, not servers of their instance: stop the ones
			// that did start (others may still be starting when the first fails).
			const settled = await Promise.allSettled(startingWorkers);
			await Promise.all(
				settled.map((start) => (start.status === 'fulfilled' ? start.value.stop(1000) : undefined)),
			);
			await Promise.all(instances.map((instance) => instance.stop()));
			await stopServices();
			throw error;
		}
	}

	/**
	 * Stops main (TERM, as an orchestrator does) and starts it again in the same user folder,
	 * with `env` for the new process (e.g. the durable poll scheduler on), logged in again.
	 */
	async restartMain(env: NodeJS.ProcessEnv = this.options.mainEnv ?? {}): Promise<N8nServer> {
		await this.main.stop();
		this.stoppedMains.push(this.main);
		this.main = await this.mainInstance.startServer({ env });
		await this.main.login(DEFAULT_OWNER);
		this.main.useApiKey(this.apiKey);
		return this.main;
	}

	/** Starts one more worker, with its own user folder and the package installed. */
	async addWorker(env: NodeJS.ProcessEnv = {}): Promise<QueueWorker> {
		const instance = await N8nInstance.create({
			encryptionKey: this.encryptionKey,
			env: queueEnv(this.postgres, this.redis),
		});
		try {
			instance.installPackage(this.options.tarball);
			const worker = await QueueWorker.start(`worker-${++this.workerCount}`, instance, env);
			this.workers.set(worker.name, worker);
			return worker;
		} catch (error) {
			await instance.stop();
			throw error;
		}
	}

	/** Starts a `n8n webhook` process, with its own user folder and the package installed. */
	async addWebhookProcess(): Promise<QueueWebhookProcess> {
		const instance = await N8nInstance.create({
			encryptionKey: this.encryptionKey,
			env: queueEnv(this.postgres, this.redis),
		});
		try {
			instance.installPackage(this.options.tarball);
			const webhook = await QueueWebhookProcess.start(instance);
			this.webhookProcesses.push(webhook);
			return webhook;
		} catch (error) {
			await instance.stop();
			throw error;
		}
	}

	/** The worker whose log says it started the execution, or undefined. */
	workerThatStarted(executionId: string): QueueWorker | undefined {
		return [...this.workers.values()].find((worker) =>
			worker.startedExecutions().includes(executionId),
		);
	}

	/** What each process printed, by name: main-1 is the first main, main-2 the one after a restart. */
	logs(): Record<string, string> {
		const logs: Record<string, string> = {};
		[...this.stoppedMains, this.main].forEach(
			(main, index) => (logs[`main-${index + 1}`] = main.log),
		);
		for (const worker of this.workers.values()) logs[worker.name] = worker.log;
		this.webhookProcesses.forEach((webhook, index) => (logs[`webhook-${index + 1}`] = webhook.log));
		return logs;
	}

	/** Resident memory of each running process group, MB. */
	memory(): Record<string, number> {
		const figures: Record<string, number> = {
			postgres: groupMemoryMb(this.postgres.process.pid),
			redis: groupMemoryMb(this.redis.process.pid),
			main: groupMemoryMb(this.main.pid),
		};
		for (const worker of this.workers.values())
			if (worker.alive) figures[worker.name] = groupMemoryMb(worker.pid);
		return figures;
	}

	/** The end of the stack: its data is thrown away, so n8n gets a second, not its usual grace. */
	async stop(): Promise<void> {
		await Promise.all([
			this.main.stop(1000),
			...[...this.workers.values()].map((worker) => worker.stop(1000)),
			...this.webhookProcesses.map((webhook) => webhook.stop(1000)),
		]);
		await Promise.all([
			this.mainInstance.stop(),
			...[...this.workers.values()].map((worker) => worker.instance.stop()),
			...this.webhookProcesses.map((webhook) => webhook.instance.stop()),
		]);
		await Promise.all([this.postgres.stop(), this.redis.stop()]);
	}
}

/** Postgres and Redis together; if one fails to start, the other is stopped before it is thrown. */
async function startServices(): Promise<[PostgresService, Service]> {
	const [postgres, redis] = await Promise.allSettled([startPostgres(), startRedis()]);
	if (postgres.status === 'fulfilled' && redis.status === 'fulfilled')
		return [postgres.value, redis.value];
	await Promise.all(
		[postgres, redis].map((start) =>
			start.status === 'fulfilled' ? start.value.stop() : undefined,
		),
	);
	throw postgres.status === 'rejected' ? postgres.reason : (redis as PromiseRejectedResult).reason;
}

/** What every n8n process of the stack shares: the database, the queue, manual runs on workers. */
function queueEnv(postgres: PostgresService, redis: Service): NodeJS.ProcessEnv {
	return {
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: '127.0.0.1',
		DB_POSTGRESDB_PORT: String(postgres.port),
		DB_POSTGRESDB_DATABASE: postgres.database,
		DB_POSTGRESDB_USER: postgres.user,
		DB_POSTGRESDB_PASSWORD: postgres.password,
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(redis.port),
		OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
	};
}
