/**
 * What `n8n execute` and n8n's API give back about a run: its run data, and the items each node
 * output in it.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/**
 * `n8n execute --rawOutput` prints logs, then the run data pretty-printed: the JSON block that
 * starts with a line `{` and ends with a line `}`.
 */
export function extractRunData(stdout: string): JsonObject | undefined {
	const lines = stdout.split('\n');
	const start = lines.indexOf('{');
	const end = lines.lastIndexOf('}');
	if (start < 0 || end < start) return undefined;
	return JSON.parse(lines.slice(start, end + 1).join('\n')) as JsonObject;
}

type Task = { data?: { main: Array<Array<{ json: JsonObject }> | null> } };

type RunData = { data: { resultData: { error?: unknown; runData: Record<string, Task[]> } } };

/**
 * The items a node sent to one of its outputs, one list per time it ran (a node in a loop runs
 * several times), from n8n's run data. Throws with n8n's error when the node never ran.
 */
export function nodeRuns(run: JsonObject, nodeName: string, output = 0): JsonObject[][] {
	return tasksOf(run, nodeName).map((one) =>
		(one.data?.main[output] ?? []).map((item) => item.json),
	);
}

/**
 * What n8n recorded of each time a node ran, beside its items: `startTime`, `hints` (what the
 * editor's output panel shows), `executionStatus`...
 */
export function nodeTasks(run: JsonObject, nodeName: string): JsonObject[] {
	return tasksOf(run, nodeName) as unknown as JsonObject[];
}

function tasksOf(run: JsonObject, nodeName: string): Task[] {
	const { resultData } = (run as unknown as RunData).data;
	const runs = resultData.runData[nodeName];
	if (!runs) {
		throw new Error(`${nodeName} did not run: ${JSON.stringify(resultData.error ?? {})}`);
	}
	return runs;
}
