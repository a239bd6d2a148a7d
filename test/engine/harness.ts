/*
 * The engine test kit: workflows, polls and credential tests through the real n8n engine
 * (n8n-core 2.41.1, n8n-workflow 2.41.0, the versions n8n 2.41.1 ships). One file per job:
 * - nodeTypes.ts: the node types a test workflow can hold (ours, loaded from source);
 * - credentials.ts: the credential injection n8n's CLI does, for this package's credential only;
 * - workflow.ts: runWorkflow, startWorkflow (to Stop it), outputOf, errorOf (WorkflowExecute);
 * - logger.ts: engineLogger, the logger nodes get as this.logger;
 * - deduplication.ts: n8n's deduplication store, where Send keeps its record (recordOf,
 *   storeCalls, failStoreCalls, valuesTakenOut for tests that look at it);
 * - poll.ts: pollOnce (PollContext, PollTriggerExecutor, static data as n8n saves it);
 * - credentialTest.ts: testCredential (as n8n's credential tester runs a declarative test);
 * - webhook.ts: a webhook trigger's webhook() through n8n-core's WebhookContext, behind HTTP;
 * - clock.ts: stopTheClock, time from the test (jest's fake Date, the engine's timers real).
 * Facts about n8n's HTTP helper that the transport relies on are checked in n8nFacts.test.ts.
 */
export {
	BULK_SMS,
	BULK_SMS_TRIGGER,
	HarnessNodeTypes,
	MANUAL_TRIGGER,
	PACKAGE_NAME,
	SET_ITEMS,
	WRITE_BACK,
	loadPackageCredentialType,
	loadPackageNodeType,
} from './nodeTypes';
export { errorOf, executeStep, outputOf, retryRun, runWorkflow, startWorkflow } from './workflow';
export { failStoreCalls, recordOf, storeCalls, valuesTakenOut } from './deduplication';
export { engineLogger } from './logger';
export { pollOnce, type PollOutcome } from './poll';
export { testCredential } from './credentialTest';
export { stopTheClock } from './clock';
