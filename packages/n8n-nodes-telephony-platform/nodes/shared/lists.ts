/** Appends one element at a time: `push(...list)` overflows the call stack from about 100,000 elements. */
export function appendAll<T>(target: T[], source: readonly T[]): T[] {
	for (let at = 0; at < source.length; at++) target.push(source[at]);
	return target;
}
