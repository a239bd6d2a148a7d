/**
 * What a viewer of the walkthrough sees beside n8n itself: a caption saying what is happening, a
 * pointer that travels to what is clicked (a headless screencast paints no cursor), title cards,
 * and actions paced for a person to follow. The overlay is put into every page Chromium loads, and
 * keeps its caption across page loads (sessionStorage); it never takes a click (pointer-events off).
 */
import type { Browser, Locator, Page } from 'playwright-core';
import type { Hands } from './browser';
import { sleep } from './processes';

export interface Caption {
	/** the step, in a word or two, shown first */
	title: string;
	text: string;
	/** where the caption sits; 'top' when what happens is at the bottom of the screen */
	at?: 'top' | 'bottom';
}

export interface Card {
	title: string;
	lines: string[];
	/** lines as a terminal shows them (a command and what it printed) */
	terminal?: boolean;
}

/** The overlay, as the page runs it: `window.bulkSmsStage.show(state)` draws the state given. */
const OVERLAY = `(() => {
	const KEY = 'bulk-sms-walkthrough';
	const css = \`
		#bs-caption { position: fixed; left: 50%; transform: translateX(-50%); z-index: 2147483646;
			max-width: 78%; padding: 12px 20px; border-radius: 10px; pointer-events: none;
			background: rgba(24, 24, 36, 0.9); color: #fff; box-shadow: 0 6px 24px rgba(0,0,0,.3);
			font: 19px/1.4 system-ui, sans-serif; }
		#bs-caption b { color: #ff9a6b; margin-right: 10px; }
		#bs-caption[data-at="top"] { top: 12px; } #bs-caption[data-at="bottom"] { bottom: 18px; }
		#bs-card { position: fixed; inset: 0; z-index: 2147483646; pointer-events: none;
			display: flex; flex-direction: column; justify-content: center; padding: 0 12%;
			background: #1d1d2b; color: #fff; font: 24px/1.5 system-ui, sans-serif; }
		#bs-card h1 { font-size: 42px; margin: 0 0 28px; color: #ff9a6b; }
		#bs-card p { margin: 0 0 14px; }
		#bs-card.terminal p { font: 19px/1.45 ui-monospace, monospace; margin: 0; white-space: pre-wrap;
			overflow-wrap: anywhere; }
		#bs-card:not([hidden]) ~ #bs-pointer { display: none; }
		#bs-pointer { position: fixed; left: 0; top: 0; z-index: 2147483647; pointer-events: none;
			width: 22px; height: 22px; margin: -11px 0 0 -11px; border-radius: 50%;
			border: 3px solid #ff6d5a; background: rgba(255, 109, 90, .25); transition: scale .15s; }
		#bs-pointer.down { scale: .6; }
		[hidden] { display: none !important; }\`;
	let nodes;
	const state = () => JSON.parse(sessionStorage.getItem(KEY) || '{}');
	function mount() {
		if (nodes || !document.body) return;
		const style = document.createElement('style');
		style.textContent = css;
		nodes = { caption: document.createElement('div'), card: document.createElement('div'),
			pointer: document.createElement('div') };
		nodes.caption.id = 'bs-caption';
		nodes.card.id = 'bs-card';
		nodes.pointer.id = 'bs-pointer';
		document.head.append(style);
		document.body.append(nodes.card, nodes.caption, nodes.pointer);
		draw(state());
	}
	const text = (tag, value) => {
		const element = document.createElement(tag);
		element.textContent = value;
		return element;
	};
	function draw(s) {
		if (!nodes) return;
		const { caption, card, pointer } = s;
		nodes.caption.hidden = !caption;
		if (caption) {
			nodes.caption.dataset.at = caption.at || 'bottom';
			nodes.caption.replaceChildren(text('b', caption.title), caption.text);
		}
		nodes.card.hidden = !card;
		if (card) {
			nodes.card.classList.toggle('terminal', Boolean(card.terminal));
			nodes.card.replaceChildren(text('h1', card.title), ...card.lines.map((l) => text('p', l)));
		}
		if (pointer) nodes.pointer.style.translate = pointer.x + 'px ' + pointer.y + 'px';
	}
	window.bulkSmsStage = { show(next) {
		const merged = { ...state(), ...next };
		sessionStorage.setItem(KEY, JSON.stringify(merged));
		mount();
		draw(merged);
	} };
	document.addEventListener('mousemove', (e) => {
		if (!nodes) mount();
		const s = state();
		s.pointer = { x: e.clientX, y: e.clientY };
		sessionStorage.setItem(KEY, JSON.stringify(s));
		if (nodes) nodes.pointer.style.translate = e.clientX + 'px ' + e.clientY + 'px';
	}, true);
	document.addEventListener('mousedown', () => nodes && nodes.pointer.classList.add('down'), true);
	document.addEventListener('mouseup', () => nodes && nodes.pointer.classList.remove('down'), true);
	if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', mount);
	else mount();
})();`;

export class Stage implements Hands {
	private constructor(
		readonly page: Page,
		/** pauses last `pace` times as long (1: for people; less while working on the scenes) */
		readonly pace: number,
	) {}

	static async open(
		browser: Browser,
		viewport: { width: number; height: number },
		pace = 1,
	): Promise<Stage> {
		const context = await browser.newContext({ viewport });
		await context.addInitScript(OVERLAY);
		return new Stage(await context.newPage(), pace);
	}

	/** Shows the caption (and takes down a card) for what comes next. */
	async caption(caption: Caption): Promise<void> {
		await this.show({ caption, card: null });
	}

	async card(card: Card): Promise<void> {
		await this.show({ card, caption: null });
	}

	private async show(state: object): Promise<void> {
		await this.page.waitForFunction(() => 'bulkSmsStage' in window);
		await this.page.evaluate((next) => {
			(window as unknown as { bulkSmsStage: { show(s: object): void } }).bulkSmsStage.show(next);
		}, state);
	}

	/** Time to read: `seconds` for a person. */
	async pause(seconds: number): Promise<void> {
		await sleep(seconds * 1000 * this.pace);
	}

	/** Moves the pointer to the middle of `target`, at a pace the eye can follow. */
	async point(target: Locator): Promise<void> {
		await target.scrollIntoViewIfNeeded();
		const box = await target.boundingBox();
		if (!box) throw new Error(`nothing to point at: ${String(target)}`);
		await this.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 8 });
		await this.pause(0.25);
	}

	async click(target: Locator): Promise<void> {
		try {
			await this.point(target);
			await target.click({ timeout: 5000 });
		} catch {
			// A tooltip the pointer raised on its way may lie over the target, or n8n drew the
			// target again as its data came: leave, and come back to it.
			await this.page.mouse.move(8, (this.page.viewportSize()?.height ?? 800) - 8, { steps: 10 });
			await this.pause(1);
			await this.point(target);
			await target.click();
		}
		await this.pause(0.25);
	}

	async doubleClick(target: Locator): Promise<void> {
		await this.point(target);
		await target.dblclick();
		await this.pause(0.25);
	}

	/** Types into a field as a person would: clicked first, what it held selected and replaced. */
	async type(field: Locator, text: string): Promise<void> {
		await this.click(field);
		await this.page.keyboard.press('ControlOrMeta+A');
		await this.page.keyboard.type(text, { delay: 30 * this.pace });
		await this.pause(0.4);
	}
}
