/**
 * Which campaign a run of Send continues: the rule of "the same send", from what n8n says of the
 * run. Send sends a text to a number once per campaign.
 * - A run someone starts is a new campaign: a production run (a schedule's tick, a webhook call, a
 *   form, an app's event, `n8n execute`, a sub-workflow call), and a run from the editor
 *   (Execute workflow, Execute step on Send, a trigger's test URL). So every alert and every test
 *   reaches every valid number; so does each pass of a loop within one execution.
 * - Except a run from the editor that repeats the rows of the Send node's last run when that run
 *   was interrupted (it failed, was stopped, or crashed): it resumes that run's campaign.
 * - A Retry continues the campaign of the run it retries (named in that execution's custom data).
 * - A Campaign Key makes the runs that give it one campaign, whatever started them.
 * (When n8n runs Send only because the user executed a later step in the editor, nothing is sent
 * at all and no campaign is opened: runStart.ts, `laterStepOf`.)
 * Pure: test/bulkSms/campaignRule.test.ts holds the rule as a table.
 */

/** What n8n says about a run. */
export interface RunStart {
	mode: string;
	/** n8n-workflow's IExecutionContext, as much of it as the rule reads. */
	context?: { source?: string };
	/** The campaign the run a Retry retries was in, from that execution's custom data. */
	retried?: string;
}

export type Verdict =
	| { kind: 'key'; key: string }
	/** A new campaign, of a slot of its own. */
	| { kind: 'new' }
	/** The editor: the node's last run's campaign if it was interrupted with these rows, else new. */
	| { kind: 'editor' }
	| { kind: 'retry'; campaign: string };

export function campaignRule(start: RunStart, key: string): Verdict {
	const manual = (start.context?.source ?? start.mode) === 'manual';
	if (key !== '') return { kind: 'key', key };
	if (start.mode === 'retry') {
		// A run that opened no record sent nothing by it: its Retry is a campaign of its own.
		return start.retried ? { kind: 'retry', campaign: start.retried } : { kind: 'new' };
	}
	return manual ? { kind: 'editor' } : { kind: 'new' };
}
