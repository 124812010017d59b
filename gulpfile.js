// Copies what tsc does not: node and credential icons (SVG, light and dark) and the codex
// files (*.node.json) that n8n reads for categories, aliases and documentation links.
const { src, dest, task } = require('gulp');

task('build:assets', () =>
	src(['nodes/**/*.svg', 'nodes/**/*.node.json', 'credentials/**/*.svg'], { base: '.', encoding: false }).pipe(dest('dist')),
);
