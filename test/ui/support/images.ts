/**
 * The pictures for the docs: screenshots written to docs/images/ by the UI run, small (PNG at
 * device scale factor 1, clipped to what they show, under 150 KB), and docs/images/README.md
 * listing them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { Locator, Page } from 'playwright-core';

import { DOCS_IMAGES_DIR, IMAGES_MANIFEST, MAX_IMAGE_BYTES, recordImage } from './session';

export interface SavedImage {
	file: string;
	bytes: number;
	width: number;
	height: number;
}

/**
 * Screenshots `target` (an element, or the page when omitted) into docs/images/<file>. When the
 * PNG comes out over the limit, the clip is narrowed from the right and bottom (the panel's
 * left and top carry what matters) until it fits. Throws when it cannot.
 */
export interface ImageOptions {
	/** What to picture: an element (default: the whole page), or a box in page pixels. */
	target?: Locator | { x: number; y: number; width: number; height: number };
	/** Elements hidden while the picture is taken (notifications are always hidden). */
	hide?: string[];
}

export async function saveDocsImage(page: Page, file: string, shows: string, options: ImageOptions = {}): Promise<SavedImage> {
	fs.mkdirSync(DOCS_IMAGES_DIR, { recursive: true });
	const viewport = page.viewportSize() ?? { width: 1400, height: 900 };
	let box: { x: number; y: number; width: number; height: number } | null = { x: 0, y: 0, width: viewport.width, height: viewport.height };
	const { target } = options;
	if (target) box = 'boundingBox' in target ? await target.boundingBox() : target;
	if (!box) throw new Error(`${file}: the element to picture is not visible`);
	const x = Math.max(0, Math.floor(box.x));
	const y = Math.max(0, Math.floor(box.y));
	let clip = { x, y, width: Math.min(Math.ceil(box.width), viewport.width - x), height: Math.min(Math.ceil(box.height), viewport.height - y) };
	// No notifications, tooltips or hover effects in the picture.
	const hidden = ['.el-notification', '.el-message', '[role="tooltip"]', ...(options.hide ?? [])];
	const style = await page.addStyleTag({ content: `${hidden.join(', ')} { visibility: hidden !important; }` });
	await page.mouse.move(viewport.width - 2, viewport.height - 2);
	const full = path.join(DOCS_IMAGES_DIR, file);
	try {
		for (let attempt = 0; attempt < 5; attempt++) {
			const png = await page.screenshot({ clip, type: 'png', scale: 'css', animations: 'disabled', caret: 'hide' });
			if (png.length <= MAX_IMAGE_BYTES) {
				fs.writeFileSync(full, png);
				recordImage(file, shows);
				return { file, bytes: png.length, width: clip.width, height: clip.height };
			}
			clip = { ...clip, width: Math.floor(clip.width * 0.9), height: Math.floor(clip.height * 0.9) };
		}
	} finally {
		await style.evaluate((el: any) => el.remove()).catch(() => undefined);
	}
	throw new Error(`${file}: still over ${MAX_IMAGE_BYTES} bytes after narrowing the picture`);
}

interface Row {
	file: string;
	shows: string;
	bytes: number;
	produced: string;
}

const README = path.join(DOCS_IMAGES_DIR, 'README.md');
const BEGIN = '<!-- images:begin (written by npm run test:ui; edit the tests, not this table) -->';
const END = '<!-- images:end -->';

function escapeCell(text: string): string {
	return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** The rows of the current README table (to keep the images this run did not produce). */
function existingRows(): Row[] {
	if (!fs.existsSync(README)) return [];
	const text = fs.readFileSync(README, 'utf8');
	const start = text.indexOf(BEGIN);
	const end = text.indexOf(END);
	if (start < 0 || end < 0) return [];
	const rows: Row[] = [];
	for (const line of text.slice(start, end).split('\n')) {
		const m = /^\| `([^`]+)` \| (.*) \| ([\d.]+) KB \| (.*) \|$/.exec(line.trim());
		if (m) rows.push({ file: m[1], shows: m[2].replace(/\\\|/g, '|'), bytes: Math.round(Number(m[3]) * 1024), produced: m[4] });
	}
	return rows;
}

/** Writes docs/images/README.md: the images of this run, and the earlier ones still on disk. */
export function writeImagesReadme(): void {
	const manifest = fs.existsSync(IMAGES_MANIFEST)
		? (JSON.parse(fs.readFileSync(IMAGES_MANIFEST, 'utf8')) as Array<{ file: string; shows: string; bytes: number; at: string; n8nVersion: string }>)
		: [];
	if (manifest.length === 0 && fs.existsSync(README)) return;
	const rows = new Map<string, Row>();
	for (const row of existingRows()) {
		if (fs.existsSync(path.join(DOCS_IMAGES_DIR, row.file))) rows.set(row.file, row);
	}
	for (const e of manifest) {
		rows.set(e.file, { file: e.file, shows: e.shows, bytes: e.bytes, produced: `\`npm run test:ui\`, n8n ${e.n8nVersion}` });
	}
	const sorted = [...rows.values()].sort((a, b) => {
		const rank = (f: string) => (f.startsWith('node-') ? 0 : f.startsWith('recipe-') ? 1 : 2);
		return rank(a.file) - rank(b.file) || a.file.localeCompare(b.file);
	});
	const table = [
		'| Image | What it shows | Size | Produced by |',
		'|---|---|---|---|',
		...sorted.map((r) => `| \`${r.file}\` | ${escapeCell(r.shows)} | ${(r.bytes / 1024).toFixed(1)} KB | ${escapeCell(r.produced)} |`),
	].join('\n');
	const text = `# Images for the docs

Screenshots of the real n8n editor (n8n 2.40, light theme, 1400x900 at device scale factor 1,
clipped to what they show), written here by \`npm run test:ui\` against the sandbox, so they
always match the code. Do not edit them by hand: change the nodes or the tests in \`test/ui/\` and
run it again (see \`test/ui/README.md\`). Each file stays under 150 KB (the run checks it).

- \`node-<nodeName>.png\`: one per node of the package (its panel on a typical operation, after
  "Execute step" or a test event, so the output panel shows sandbox data). Written by
  \`test/ui/execute.ui.ts\` (action nodes) and \`test/ui/triggers.ui.ts\` (triggers).
- \`recipe-<file>.png\`: each recipe workflow of \`examples/\` (\`examples/<file>.json\` and the
  subfolders, \`examples/ai-agents/\`, \`examples/wholesale/\`), imported and shown on the canvas
  (nodes and notes, without the canvas buttons). Written by \`test/ui/recipes.ui.ts\`.

${BEGIN}
${table}
${END}
`;
	fs.mkdirSync(DOCS_IMAGES_DIR, { recursive: true });
	fs.writeFileSync(README, text);
}
