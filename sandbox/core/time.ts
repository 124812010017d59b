/** Both timestamp forms the platform uses: `2026-01-02T03:04:05Z` and `2026-01-02T03:04:05.678+0000`. */
export function platformTime(date: Date, form: 'z' | 'offset'): string {
	const iso = date.toISOString();
	return form === 'z' ? iso.replace(/\.\d{3}Z$/, 'Z') : iso.replace('Z', '+0000');
}

export function parseTime(value: unknown): number {
	if (typeof value !== 'string' || value === '') return Number.NaN;
	return Date.parse(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
}
