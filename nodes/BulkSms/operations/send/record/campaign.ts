/**
 * Which runs of a Send node are one campaign: the rule of "the same send". Send sends a text to a
 * number once per campaign, and n8n says what the user is doing:
 * - each production run (a schedule's tick, a webhook call, a form, an app's event, `n8n execute`,
 *   a sub-workflow call) is a campaign of its own, so every alert goes to every valid number;
 * - a Retry continues the campaign of the execution it retries: n8n hands a Retry the execution
 *   context of the run it retries (the same start and trigger), and its custom data;
 * - runs from the editor continue the editor's campaign, so that running a step again sends
 *   nothing twice;
 * - a Campaign Key makes the runs that give it one campaign, whatever started them.
 * Pure: test/bulkSms/campaignRule.test.ts holds the rule as a table.
 */

/** What n8n says about a run: its mode, its execution context and custom data. */
export interface RunStart {
	mode: string;
	executionId: string;
	/** n8n-workflow's IExecutionContext, as much of it as the rule reads. */
	context?: { establishedAt?: number; source?: string; triggerNode?: { name: string } };
	/** The campaign a run set apart (`apart`), as the execution's custom data names it. */
	setApart?: string;
}

/** The key of the execution's custom data that names a campaign set apart. */
export const SET_APART_KEY = 'bulk_sms_campaign';

export type CampaignKind = 'editor' | 'run' | 'key';

export interface Campaign {
	kind: CampaignKind;
	/** The record's name for it: the same for every run of the campaign, unlike any other. */
	id: string;
	/** In words, for what Send says of the numbers it held back. */
	label: string;
}

export const EDITOR: Campaign = { kind: 'editor', id: 'editor', label: "the editor's runs" };

/**
 * The campaign of a run, or why it cannot be known: a Retry whose n8n kept no record of when the
 * run it retries started (n8n 1.x, after a crash) might otherwise send again what that run sent.
 */
export function campaignOf(start: RunStart, key: string): Campaign | { unknown: string } {
	if (key !== '') return { kind: 'key', id: `key ${key}`, label: `Campaign Key "${key}"` };
	const source = start.context?.source ?? start.mode;
	if (source === 'manual') return EDITOR;
	const retry = start.mode === 'retry';
	if (retry && start.setApart)
		return { kind: 'run', id: start.setApart, label: 'the run it retries' };
	const at = start.context?.establishedAt;
	if (retry && (source === 'retry' || at === undefined)) {
		return { unknown: 'n8n kept no record of when the execution it retries started' };
	}
	// An n8n that gives no start: the run is its own campaign, and no Retry of it finds it.
	if (at === undefined)
		return run(`execution ${start.executionId}`, `execution ${start.executionId}`);
	const trigger = start.context?.triggerNode?.name ?? '';
	return run(`${source} ${at} ${trigger}`, `the ${source} run of ${new Date(at).toISOString()}`);
}

/**
 * Two production runs of one trigger that n8n started in the same millisecond have the same
 * campaign: the second to open the record sets its own apart with its execution id.
 */
export function apart(campaign: Campaign, executionId: string): Campaign {
	return {
		kind: 'run',
		id: `${campaign.id} #${executionId}`,
		label: `${campaign.label} (execution ${executionId})`,
	};
}

function run(id: string, label: string): Campaign {
	return { kind: 'run', id: `run ${id}`, label };
}
