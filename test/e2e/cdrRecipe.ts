/**
 * The carriers' recipe (examples/wholesale/cdr-hourly-to-postgres.json) as the main-mode and
 * queue-mode suites run it: the table its note tells the user to create, and its Postgres
 * credential pointed at a throwaway server.
 */
import type { CredentialImport } from './harness';
import { loadExample, wholesaleCredentials } from './sandboxAdmin';

export const CDR_RECIPE_ID = 'tpWsCdrHourlyPg1';
export const CDR_TABLE = 'wholesale_cdrs';

export function cdrRecipe(): Record<string, any> {
	return loadExample('wholesale/cdr-hourly-to-postgres.json');
}

/** The CREATE TABLE of the recipe's sticky note. */
export function createCdrTableSql(recipe: Record<string, any>): string {
	const note = String(recipe.nodes.find((n: Record<string, any>) => n.name === 'Sticky Note').parameters.content);
	const sql = /```sql\n([\s\S]*?)```/.exec(note)?.[1];
	if (!sql) throw new Error('the recipe note holds no CREATE TABLE');
	return sql;
}

/** examples/wholesale/sandbox-credentials.json's Postgres credential, on this server's port and database. */
export function cdrDatabaseCredential(sandboxUrl: string, port: number, database: string): CredentialImport {
	const credential = wholesaleCredentials(sandboxUrl).find((c) => c.type === 'postgres');
	if (!credential) throw new Error('examples/wholesale/sandbox-credentials.json has no Postgres credential');
	return { ...credential, data: { ...credential.data, port, database } };
}
