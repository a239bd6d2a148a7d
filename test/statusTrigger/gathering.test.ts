/* eslint-disable
	@n8n/community-nodes/no-restricted-globals
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/** Callbacks that arrive while another is handed over go together: who starts, who waits, what the others learn. */
import {
	Gathering,
	type CallbackItems,
	type HandOver,
} from '../../nodes/BulkSmsStatusTrigger/gathering';

const callback = (name: string, wanted = true): CallbackItems => ({
	items: [{ json: { name } }],
	wanted: [wanted],
});
const names = (handOver: HandOver) =>
	'starts' in handOver ? handOver.starts.flatMap((c) => c.items.map((i) => i.json.name)) : [];

function starter(handOver: HandOver) {
	if (!('starts' in handOver)) throw new Error('expected this callback to start the execution');
	return handOver;
}

it('lets a lone callback start its execution at once', async () => {
	const handOver = await new Gathering().join(callback('a'));
	expect(names(handOver)).toEqual(['a']);
});

it('has those who come while a hand-over is under way wait; the first of them starts for all, in order', async () => {
	const gathering = new Gathering();
	const first = starter(await gathering.join(callback('a')));
	const waiting = ['b', 'c', 'd'].map((name) => gathering.join(callback(name)));
	first.answered(true);
	const b = starter(await waiting[0]);
	expect(names(b)).toEqual(['b', 'c', 'd']);
	// c and d learn their fate from b's answer, and only then.
	let told = false;
	void Promise.all(waiting.slice(1)).then(() => (told = true));
	await new Promise((resolve) => setImmediate(resolve));
	expect(told).toBe(false);
	b.answered(false);
	expect(await Promise.all(waiting.slice(1))).toEqual([
		{ startedWith: { started: false } },
		{ startedWith: { started: false } },
	]);
});

it('starts the next group once the hand-over before it was answered, and only once', async () => {
	const gathering = new Gathering();
	const first = starter(await gathering.join(callback('a')));
	const second = gathering.join(callback('b'));
	first.answered(true);
	first.answered(false); // a second report of the same answer changes nothing
	const b = starter(await second);
	expect(names(b)).toEqual(['b']);
	b.answered(true);
	expect(names(await gathering.join(callback('c')))).toEqual(['c']);
});

it('knows what the filters want of the items it handed over, by the objects themselves', async () => {
	const gathering = new Gathering();
	const [kept, dropped] = [callback('a', true), callback('b', false)];
	starter(await gathering.join(kept)).answered(true);
	await gathering.join(dropped);
	const [a, b] = [kept.items[0].json, dropped.items[0].json];
	expect(gathering.wantedOf([a, b])).toEqual([true, false]);
	expect(gathering.wantedOf([a, { ...b }])).toBeUndefined(); // a copy: not handed over here
});
