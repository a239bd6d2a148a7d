/* eslint-disable
	@n8n/community-nodes/no-restricted-globals
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/**
 * Drives n8n's editor in Debian's Chromium (playwright-core, no downloaded browser), to see the
 * package's nodes the way a user sees them: icons, names, panels, and what n8n complains about.
 */
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { DEFAULT_OWNER, type N8nServer, type Owner } from './server';

export const CHROMIUM = process.env.BULKSMS_CHROMIUM || '/usr/bin/chromium';

// Without the networking flags Chromium keeps dialling Google's hosts, which this machine refuses.
const CHROMIUM_ARGS = [
	'--headless',
	'--no-sandbox',
	'--disable-gpu',
	'--disable-background-networking',
	'--disable-component-update',
];

export function launchBrowser(): Promise<Browser> {
	return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/** A page with a viewport large enough for the canvas and the node panel side by side. */
export async function newPage(
	browser: Browser,
	viewport = { width: 1280, height: 800 },
): Promise<Page> {
	const context = await browser.newContext({ viewport });
	return context.newPage();
}

/** Logs in through the sign-in form, as a user does. */
export async function loginThroughForm(
	page: Page,
	server: N8nServer,
	owner: Owner = DEFAULT_OWNER,
): Promise<void> {
	await page.goto(`${server.baseUrl}/signin`);
	await page
		.locator('input[type="email"], input[name="emailOrLdapLoginId"]')
		.first()
		.fill(owner.email);
	await page.locator('input[type="password"]').first().fill(owner.password);
	await page.locator('[data-test-id="form-submit-button"], button[type="submit"]').first().click();
	await page.waitForURL((url) => !url.pathname.startsWith('/signin'), { timeout: 30_000 });
}

/** Opens a workflow and waits until its nodes are on the canvas. */
export async function openWorkflow(
	page: Page,
	server: N8nServer,
	workflowId: string,
): Promise<void> {
	await page.goto(`${server.baseUrl}/workflow/${workflowId}`);
	await page.locator('[data-test-id="canvas-node"]').first().waitFor({ timeout: 60_000 });
	// Icons load after the nodes are placed; a screenshot taken earlier shows placeholders.
	await page.waitForLoadState('networkidle');
	// The canvas fades in: a screenshot taken during the fade shows every node washed out.
	await page.waitForFunction(() => {
		let element = document.querySelector('[data-test-id="canvas-node"]');
		let opacity = 1;
		for (; element; element = element.parentElement) {
			opacity *= Number(getComputedStyle(element).opacity);
		}
		return opacity === 1;
	});
}

export function canvasNode(page: Page, nodeName: string) {
	return page.locator(`[data-test-id="canvas-node"][data-node-name="${nodeName}"]`);
}

/** Double-click opens the node's panel (NDV), where its parameters and credentials show. */
export async function openNodePanel(page: Page, nodeName: string): Promise<void> {
	await canvasNode(page, nodeName).dblclick();
	await page.locator('[data-test-id="ndv"]').first().waitFor({ timeout: 30_000 });
}

/** What a node panel's Table view shows: its columns and, per row, each cell's text. */
export interface TableView {
	headers: string[];
	/** As drawn: n8n writes an empty string as "empty". */
	rows: string[][];
}

const OUTPUT_PANEL = '[data-test-id="output-panel"]';

/**
 * Opens a node's panel on the page at `url` (a workflow, or one of its executions), shows its
 * output as a table, widened over the parameters, and returns what the table shows (for
 * `screenshotTable` next).
 */
export async function showTableOf(page: Page, url: string, nodeName: string): Promise<TableView> {
	await page.goto(url);
	await canvasNode(page, nodeName).waitFor({ timeout: 60_000 });
	await page.waitForLoadState('networkidle');
	await openNodePanel(page, nodeName);
	await page.locator(OUTPUT_PANEL).locator('[data-test-id="radio-button-table"]').click();
	// The parameters sit between input and output; dragged to the left, the output gets their room.
	const handle = await page.locator('[data-test-id="panel-drag-button"]').boundingBox();
	if (handle) {
		const y = handle.y + handle.height / 2;
		await page.mouse.move(handle.x + handle.width / 2, y);
		await page.mouse.down();
		await page.mouse.move(handle.x - 600, y, { steps: 20 });
		await page.mouse.up();
	}
	const table = page.locator(OUTPUT_PANEL).locator('table');
	await table.waitFor();
	const headers = (await table.locator('thead th').allInnerTexts()).map((text) => text.trim());
	const rows = await table
		.locator('tbody tr')
		.evaluateAll((trs) =>
			trs.map((tr) =>
				Array.from(tr.querySelectorAll('td'), (td) => (td as HTMLElement).innerText.trim()),
			),
		);
	// n8n's last column is the one where a user adds a field: it has no header.
	const shown = headers.filter((header) => header !== '').length;
	return { headers: headers.slice(0, shown), rows: rows.map((row) => row.slice(0, shown)) };
}

/** The output panel of the open node panel, down to the end of its table. */
export async function screenshotTable(page: Page, file: string): Promise<void> {
	const panel = await page.locator(OUTPUT_PANEL).boundingBox();
	const table = await page.locator(OUTPUT_PANEL).locator('table').boundingBox();
	if (!panel || !table) throw new Error('no table in the output panel');
	const height = Math.min(panel.height, table.y + table.height + 16 - panel.y);
	await page.screenshot({ path: file, clip: { ...panel, height } });
}

export interface CanvasNodeReport {
	name: string;
	type: string;
	/** n8n does not know the type: it draws "?" with an "install this node" badge */
	unknown: boolean;
	/** no icon drawn: the "?" placeholder, or an <img> whose file did not load */
	iconMissing: boolean;
	/** n8n flags the node (missing credentials or parameters, ...) */
	issues: boolean;
}

export interface CanvasReport {
	nodes: CanvasNodeReport[];
	/** texts of error toasts and danger callouts n8n shows */
	errors: string[];
}

/**
 * What a user would notice is wrong, read from the rendered page (selectors of n8n 2.41.1's
 * editor). Checks what is drawn, not what the API says.
 */
export async function inspectCanvas(page: Page): Promise<CanvasReport> {
	const nodes = await page.locator('[data-test-id="canvas-node"]').evaluateAll((elements) =>
		elements.map((element) => {
			const icon = element.querySelector('.n8n-node-icon');
			const image = icon?.querySelector('img') ?? null;
			const placeholder = icon !== null && image === null && icon.textContent?.trim() === '?';
			return {
				name: element.getAttribute('data-node-name') ?? '',
				type: element.getAttribute('data-node-type') ?? '',
				unknown:
					element.querySelector('[data-test-id="node-not-installed"]') !== null || placeholder,
				iconMissing:
					placeholder || (image !== null && (!image.complete || image.naturalWidth === 0)),
				issues: element.querySelector('[data-test-id="node-issues"]') !== null,
			};
		}),
	);
	// n8n draws a node's own notices (a parameter of type notice) as role="alert" too, with the
	// class `notice` and a theme: only its danger theme is an error.
	const errors = await page
		.locator(
			'.el-notification:has(.el-notification--error), .n8n-callout--danger, [role="alert"]:not(.notice), .notice[class*="_danger_"]',
		)
		.allInnerTexts();
	return { nodes, errors: errors.map((text) => text.trim()).filter(Boolean) };
}

const CREATOR_ITEM = '[data-test-id="item-iterator-item"]';
const CREATOR_ITEM_NAME = '[data-test-id="node-creator-item-name"]';

/**
 * How the editor is worked: at once (the tests), or at a pace a person watching can follow
 * (stage.ts, the walkthrough). The helpers below take either.
 */
export interface Hands {
	click(target: Locator): Promise<void>;
	/** clicks the field, then types `text` into it */
	type(field: Locator, text: string): Promise<void>;
}

export const AT_ONCE: Hands = {
	click: (target) => target.click(),
	type: async (field, text) => {
		await field.click();
		await field.page().keyboard.type(text);
	},
};

export interface CreatorResult {
	/** what the user reads */
	name: string;
	/** the node type n8n keeps for it (`<package>.<node>`) */
	type: string;
}

/**
 * Opens the node creator with `opener` (the canvas's first-step button, or the + after a node)
 * and searches `text`; resolves once the results match it.
 */
export async function openNodeCreator(
	page: Page,
	opener: Locator,
	text: string,
	hands: Hands = AT_ONCE,
): Promise<void> {
	await hands.click(opener);
	const search = page.locator('[data-test-id="node-creator-search-bar"]').first();
	await search.waitFor();
	await hands.type(search, text);
	// Until the search has run, the creator lists its categories: wait for an item with every word.
	const everyWord = text
		.split(/\s+/)
		.map((word) => `(?=[\\s\\S]*${word.replace(/[^\w]/g, '\\$&')})`)
		.join('');
	await page
		.locator(CREATOR_ITEM, { hasText: new RegExp(everyWord, 'i') })
		.first()
		.waitFor();
	await page.waitForLoadState('networkidle');
}

/**
 * Opens the node creator on an empty workflow, types `text` in its search, and returns the
 * results in the order shown.
 */
export async function searchNodeCreator(
	page: Page,
	server: N8nServer,
	text: string,
): Promise<CreatorResult[]> {
	await page.goto(`${server.baseUrl}/workflow/new`);
	await openNodeCreator(page, page.locator('[data-test-id="canvas-add-button"]').first(), text);
	return page.locator(CREATOR_ITEM).evaluateAll((items) =>
		items.map((item) => ({
			name:
				item.querySelector('[data-test-id="node-creator-item-name"]')?.textContent?.trim() ?? '',
			// n8n's keyboard navigation id is the node type followed by a per-render uuid
			type: (item.getAttribute('data-keyboard-nav-id') ?? '').replace(/-[0-9a-f-]{36}$/, ''),
		})),
	);
}

/**
 * In the node creator's results, opens a node's entry and clicks one of its triggers or actions,
 * as a user adds a node; returns the names of the nodes then on the canvas.
 */
export async function addFromAction(
	page: Page,
	entry: string,
	action: string,
	hands: Hands = AT_ONCE,
): Promise<string[]> {
	// n8n follows some names with a space (before the badge of a community node).
	const named = page.locator(CREATOR_ITEM_NAME, { hasText: new RegExp(`^${entry}\\s*$`) });
	await hands.click(page.locator(CREATOR_ITEM, { has: named }).first());
	// The entry's panel slides in over the results; clicks land on it once it has settled.
	const sections = page.getByText(/^(Actions|Triggers) \(\d+\)$/);
	await sections.first().waitFor();
	await page.locator('.panel-slide-in-enter-active').waitFor({ state: 'detached' });
	// From an empty workflow, the actions come folded under the triggers.
	const actionItem = page.locator(CREATOR_ITEM, { hasText: action }).first();
	if (!(await actionItem.isVisible())) await hands.click(page.getByText(/^Actions \(\d+\)$/));
	await hands.click(actionItem);
	await page.locator('[data-test-id="ndv"]').first().waitFor({ timeout: 30_000 });
	return page
		.locator('[data-test-id="canvas-node"]')
		.evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-node-name') ?? ''));
}
