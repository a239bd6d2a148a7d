/**
 * (b) Headless: an imported workflow (Manual Trigger → Bulk SMS Send) runs with `n8n execute`
 * against the sandbox, and its output comes back as n8n's run data.
 */
import { outputItems, startHarness, type Harness } from './harness';
import { sendWorkflow } from '../scripts/n8n/workflows';

const WORKFLOW_ID = 'e2eSendWf00001';

describe('n8n execute (headless)', () => {
	let harness: Harness;

	beforeAll(async () => {
		harness = await startHarness();
		await harness.n8n.importWorkflow(sendWorkflow(WORKFLOW_ID));
	});
	afterAll(() => harness?.stop());

	test('runs the imported send workflow and returns its items', async () => {
		const run = await harness.n8n.executeWorkflow(WORKFLOW_ID);

		expect(run).toMatchObject({ status: 'success', finished: true, mode: 'cli' });
		const items = outputItems(run);
		expect(items.length).toBeGreaterThan(0);
		// Ids travel as strings of digits: a JS number would have lost digits past 2^53.
		for (const item of items) expect(item.batch_id).toMatch(/^\d+$/);
	});
});
