/**
 * Exactness check of the indexer: per table of a Ponder schema, the row count and an md5 of
 * all rows (each row as text, sorted), so two indexers of the same chain can be compared.
 * Ponder's own tables (`_ponder_*`, `_reorg__*`) are left out.
 */
import pg from "pg";

export type TableChecksum = { table: string; rows: number; md5: string };

export async function tableChecksums(databaseUrl: string, schema: string): Promise<TableChecksum[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows: tables } = await client.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables
        WHERE table_schema = $1 AND table_type = 'BASE TABLE' AND table_name NOT LIKE '\\_%'
        ORDER BY table_name`,
      [schema],
    );
    const out: TableChecksum[] = [];
    for (const { table_name } of tables) {
      const name = `${client.escapeIdentifier(schema)}.${client.escapeIdentifier(table_name)}`;
      const { rows } = await client.query<{ n: string; md5: string | null }>(
        `SELECT count(*)::text AS n, md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '')) AS md5 FROM ${name} t`,
      );
      out.push({ table: table_name, rows: Number(rows[0]!.n), md5: rows[0]!.md5 ?? "" });
    }
    return out;
  } finally {
    await client.end();
  }
}

/** Differences between two checksum lists (empty when identical). */
export function compareChecksums(expected: TableChecksum[], actual: TableChecksum[]): string[] {
  const diffs: string[] = [];
  const byName = new Map(actual.map((c) => [c.table, c]));
  for (const e of expected) {
    const a = byName.get(e.table);
    if (!a) diffs.push(`${e.table}: missing`);
    else if (a.rows !== e.rows || a.md5 !== e.md5) diffs.push(`${e.table}: ${e.rows} rows ${e.md5.slice(0, 8)} vs ${a.rows} rows ${a.md5.slice(0, 8)}`);
    byName.delete(e.table);
  }
  for (const name of byName.keys()) diffs.push(`${name}: unexpected`);
  return diffs;
}
