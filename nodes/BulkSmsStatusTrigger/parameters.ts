/** What the trigger's two steps (webhook() and the execution's) read alike. */
import type { IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';

import { DEFAULT_MEMORY, MAX_MEMORY } from './memory';

/** Key of the trigger's memory in the node's static data. */
export const MEMORY_KEY = 'seen';

/**
 * The Remember option, bounded. Read by each context in its own way: a webhook's
 * getNodeParameter takes no item index (given one, it took the 0 as the fallback).
 */
export function memoryLimit(limit: unknown): number {
	return Math.min(MAX_MEMORY, Math.max(1, Math.floor(limit as number) || DEFAULT_MEMORY));
}

/**
 * One trigger: a workflow and its node (a workflow may hold two Status Triggers), apart in the
 * editor's tests ("Test this trigger"), whose callbacks must not pass for production ones.
 */
export function triggerOf(context: IExecuteFunctions | IWebhookFunctions): string {
	return `${context.getMode()} ${context.getWorkflow().id ?? ''} ${context.getNode().id}`;
}
