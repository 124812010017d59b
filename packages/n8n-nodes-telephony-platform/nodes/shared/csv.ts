/** RFC 4180 CSV as rows of fields: quoted fields may hold commas, doubled quotes and line breaks; CRLF or LF. */
export function parseCsv(text: string): string[][] {
	const rows: string[][] = [];
	let row: string[] = [];
	let field = '';
	let quoted = false;
	for (let i = 0; i < text.length; i++) {
		const char = text[i];
		if (quoted && char === '"' && text[i + 1] === '"') {
			field += '"';
			i++;
		} else if (quoted) {
			if (char === '"') quoted = false;
			else field += char;
		} else if (char === '"' && field === '') {
			quoted = true;
		} else if (char === ',') {
			row.push(field);
			field = '';
		} else if (char === '\n' || char === '\r') {
			rows.push([...row, field]);
			row = [];
			field = '';
			if (char === '\r' && text[i + 1] === '\n') i++;
		} else {
			field += char;
		}
	}
	if (field !== '' || row.length > 0) rows.push([...row, field]);
	return rows;
}

/** Rows as objects keyed by the header row. */
export function csvRecords(rows: string[][]): Array<Record<string, string>> {
	const [header, ...body] = rows;
	if (!header) return [];
	return body
		.filter((row) => row.some((cell) => cell !== ''))
		.map((row) => Object.fromEntries(header.map((name, index) => [name.trim(), row[index] ?? ''])));
}

/** Where the first record (the header row) of a CSV text ends, quoted line breaks respected: the offset after its line end. */
export function afterHeaderRow(text: string): number {
	let quoted = false;
	for (let i = 0; i < text.length; i++) {
		const char = text[i];
		if (char === '"') quoted = !quoted;
		else if (!quoted && (char === '\n' || char === '\r'))
			return char === '\r' && text[i + 1] === '\n' ? i + 2 : i + 1;
	}
	return text.length;
}
