/**
 * A long run's progress in n8n's log: every 30 seconds, and once at the end of a run that took
 * longer, how many numbers were accepted, held back (sent before or in doubt), not sent, or left unknown.
 * n8n shows nothing of a node while it runs and keeps nothing of it after a crash: its log (or
 * `docker logs`) is where a person follows a paced campaign and sees what went out before a stop.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { count } from '../../../shared/domain/words';
import type { RequestResult } from './model';

const EVERY_MS = 30_000;

export class Progress {
	private readonly started = Date.now();
	private logged = this.started;
	private readonly tally = { accepted: 0, heldBack: 0, notSent: 0, unknown: 0 };

	constructor(
		private readonly context: IExecuteFunctions,
		/** Numbers the run was given to send. */
		private readonly total: number,
	) {}

	add(result: RequestResult): void {
		if (result.outcome === 'not attempted') return;
		this.tally.heldBack += result.held.length;
		if (result.outcome === 'accepted') this.tally.accepted += result.sent.length;
		else if (result.outcome === 'unknown') this.tally.unknown += result.sent.length;
		else if (result.outcome !== 'held back') this.tally.notSent += result.sent.length;
		if (Date.now() - this.logged >= EVERY_MS) this.log('so far');
	}

	done(): void {
		if (Date.now() - this.started >= EVERY_MS) this.log('at the end');
	}

	private log(when: string): void {
		this.logged = Date.now();
		const { accepted, heldBack, notSent, unknown } = this.tally;
		const handled = accepted + heldBack + notSent + unknown;
		const seconds = Math.max(1, (this.logged - this.started) / 1000);
		const node = this.context.getNode().name;
		const where = `workflow ${this.context.getWorkflow().id ?? '?'}, execution ${this.context.getExecutionId()}`;
		this.context.logger.info(
			`Bulk SMS Send "${node}" (${where}), ${when}: ${count(handled)} of ${count(this.total)} numbers: ${count(accepted)} accepted, ${count(heldBack)} held back, ${count(notSent)} not sent, ${count(unknown)} unknown (${count(Math.round(accepted / seconds))} a second)`,
		);
	}
}
