/**
 * A minimal, valid PDF 1.4 document: one A4 page of Helvetica text lines, with a correct
 * cross-reference table, so PDF readers (and byte-level checks) accept it.
 */
export function textPdf(title: string, lines: string[]): Buffer {
	const escape = (text: string) =>
		Array.from(text, (ch) => (ch.charCodeAt(0) > 0x7e ? '?' : ch))
			.join('')
			.replace(/[\\()]/g, (ch) => `\\${ch}`);
	const content = [
		'BT',
		'/F1 16 Tf',
		'50 790 Td',
		`(${escape(title)}) Tj`,
		'/F1 10 Tf',
		'0 -28 Td',
		...lines.flatMap((line) => [`(${escape(line)}) Tj`, '0 -14 Td']),
		'ET',
	].join('\n');
	const objects = [
		'<< /Type /Catalog /Pages 2 0 R >>',
		'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
		'<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
		'<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
		`<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`,
		`<< /Title (${escape(title)}) /Producer (Wholesale Voice sandbox) >>`,
	];
	let pdf = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
	const offsets: number[] = [];
	objects.forEach((body, index) => {
		offsets.push(Buffer.byteLength(pdf, 'latin1'));
		pdf += `${index + 1} 0 obj\n${body}\nendobj\n`;
	});
	const xref = Buffer.byteLength(pdf, 'latin1');
	pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
	for (const offset of offsets) pdf += `${String(offset).padStart(10, '0')} 00000 n \n`;
	pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info ${objects.length} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
	return Buffer.from(pdf, 'latin1');
}
