/**
 * A figure a test measures (the docs quote it), printed only when TELEPHONY_FIGURES=1 is set:
 * `npm test` prints nothing but Jest's own lines, and `TELEPHONY_FIGURES=1 npx jest <file>` shows it.
 */
export function printFigure(line: string): void {
	if (process.env.TELEPHONY_FIGURES === '1') process.stdout.write(`${line}\n`);
}
