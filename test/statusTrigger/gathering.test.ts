/* eslint-disable
	@n8n/community-nodes/no-restricted-globals
	-- dev code: plain Node, never inside n8n (docs/decisions.md, "Lint") */
/** Callbacks that arrive while another is handed over ride together: who carries, who waits, what riders learn. */
import { Gathering, type Parcel, type Turn } from '../../nodes/BulkSmsStatusTrigger/gathering';

const parcel = (name: string): Parcel => ({ items: [{ json: { name } }] });
const names = (turn: Turn) =>
	'carries' in turn ? turn.carries.flatMap((p) => p.items.map((i) => i.json.name)) : [];

it('lets a lone callback carry itself at once', async () => {
	const turn = await new Gathering().join(parcel('a'));
	expect(names(turn)).toEqual(['a']);
});

it('seats those who come while a hand-over is under way; the first carries them all, in order', async () => {
	const gathering = new Gathering();
	const first = await gathering.join(parcel('a'));
	const waiting = ['b', 'c', 'd'].map((name) => gathering.join(parcel(name)));
	if (!('carries' in first)) throw new Error('a carries');
	first.handedOver(true);
	const b = await waiting[0];
	expect(names(b)).toEqual(['b', 'c', 'd']);
	if (!('carries' in b)) throw new Error('b carries');
	// c and d learn their fate from b's answer, and only then.
	let told = false;
	void Promise.all(waiting.slice(1)).then(() => (told = true));
	await new Promise((resolve) => setImmediate(resolve));
	expect(told).toBe(false);
	b.handedOver(false);
	expect(await Promise.all(waiting.slice(1))).toEqual([
		{ riddenWith: { started: false } },
		{ riddenWith: { started: false } },
	]);
});

it('starts the next group once the hand-over before it was answered, and only once', async () => {
	const gathering = new Gathering();
	const first = await gathering.join(parcel('a'));
	if (!('carries' in first)) throw new Error('a carries');
	const second = gathering.join(parcel('b'));
	first.handedOver(true);
	first.handedOver(false); // a second report of the same answer changes nothing
	const b = await second;
	expect(names(b)).toEqual(['b']);
	if (!('carries' in b)) throw new Error('b carries');
	b.handedOver(true);
	expect(names(await gathering.join(parcel('c')))).toEqual(['c']);
});
