/**
 * Zero-downtime switch of the stable views schema (`chain`, what the API and `npm run graphql`
 * read) to a new indexing version.
 *
 * Ponder 0.16 re-points its views schema when a version's *backfill* is done: at the finalized
 * block, 30 blocks behind the head on Base, before its live phase has indexed the newest blocks.
 * Pointed at `chain` directly, a new version would hide for a moment what the old one already
 * showed (pods minted in the last minute answered 404; docs/operations.md). So `npm run indexer`
 * lets Ponder publish into a staging views schema of its own and publishes `chain` itself, once
 * its schema has reached the chain head (within `maxLagBlocks`) and the block `chain` shows now,
 * in ONE transaction: every view
 * re-created on the new schema's tables, Ponder's live-query function and trigger moved with them.
 * Readers see the old views or the
 * new ones, never a mix and never none. Ponder's own model stays: the newest started version
 * takes over; stop the old one after the switch (docs/deploy.md, "Upgrades").
 */
import pg from "pg";

export interface PublishTarget {
  databaseUrl: string;
  /** The Ponder schema of this version. */
  schema: string;
  /** The stable views schema to point at it. */
  viewsSchema: string;
  /** The views schema Ponder itself publishes into (holds its live-query function). */
  stagingViewsSchema: string;
}

/** Ponder's staging views schema for `schema` (≤ 63 characters, PostgreSQL's limit). */
export function stagingViewsSchemaFor(viewsSchema: string, schema: string): string {
  return `${viewsSchema}__${schema}`.slice(0, 63);
}

const id = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * The block (and its time) of `schema`'s Ponder checkpoint, or null before Ponder has one; `schema`
 * is a Ponder schema or a views schema. The one reader of the checkpoint (the API's lag probe and
 * block headers use it too). Throws when the database fails.
 */
export async function readCheckpoint(
  db: pg.Pool | pg.ClientBase,
  schema: string,
): Promise<{ block: number; timestamp: number } | null> {
  const table = `${id(schema)}."_ponder_checkpoint"`;
  const exists = await db.query<{ found: boolean }>("SELECT to_regclass($1) IS NOT NULL AS found", [table]);
  if (!exists.rows[0]?.found) return null;
  const { rows } = await db.query<{ latest_checkpoint: string }>(
    `SELECT latest_checkpoint FROM ${table} ORDER BY latest_checkpoint LIMIT 1`,
  );
  const checkpoint = rows[0]?.latest_checkpoint;
  // Ponder's checkpoint: 10 digits block timestamp, 16 chain id, 16 block number, then the event
  return checkpoint ? { timestamp: Number(checkpoint.slice(0, 10)), block: Number(checkpoint.slice(26, 42)) } : null;
}

/** The latest block of `schema`'s checkpoint, or null before Ponder has one. */
export async function indexedBlockOf(client: pg.ClientBase, schema: string): Promise<number | null> {
  return (await readCheckpoint(client, schema))?.block ?? null;
}

/** The Ponder schema the views schema shows (the tables its `_ponder_checkpoint` view reads), or null. */
export async function publishedSchema(client: pg.ClientBase, viewsSchema: string): Promise<string | null> {
  const { rows } = await client.query<{ schema: string }>(
    `SELECT table_schema AS schema FROM information_schema.view_table_usage
      WHERE view_schema = $1 AND view_name = '_ponder_checkpoint' LIMIT 1`,
    [viewsSchema],
  );
  return rows[0]?.schema ?? null;
}

/** Re-points every view of `viewsSchema` at `schema`, in one transaction. */
export async function switchViews(target: PublishTarget): Promise<{ views: number; previous: string | null }> {
  const client = new pg.Client({ connectionString: target.databaseUrl });
  await client.connect();
  try {
    await client.query("BEGIN");
    // a reader's long query must not hold the switch for ever, nor the switch hold readers
    await client.query("SET LOCAL lock_timeout = '10s'");
    const previous = await publishedSchema(client, target.viewsSchema);
    const { rows: tables } = await client.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables
        WHERE table_schema = $1 AND (table_name NOT LIKE '\\_%' OR table_name IN ('_ponder_meta', '_ponder_checkpoint'))
        ORDER BY table_name`,
      [target.schema],
    );
    if (!tables.some((t) => t.name === "_ponder_checkpoint")) throw new Error(`${target.schema} is not a Ponder schema`);
    const { rows: fn } = await client.query<{ definition: string }>(
      "SELECT pg_get_functiondef(to_regprocedure($1)) AS definition",
      [`${id(target.stagingViewsSchema)}.live_query_notify()`],
    );
    if (!fn[0]?.definition) throw new Error(`Ponder has not published ${target.stagingViewsSchema} yet`);

    await client.query(`CREATE SCHEMA IF NOT EXISTS ${id(target.viewsSchema)}`);
    const { rows: existing } = await client.query<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.views WHERE table_schema = $1",
      [target.viewsSchema],
    );
    for (const { name } of existing) await client.query(`DROP VIEW ${id(target.viewsSchema)}.${id(name)}`);
    for (const { name } of tables) {
      await client.query(
        `CREATE VIEW ${id(target.viewsSchema)}.${id(name)} AS SELECT * FROM ${id(target.schema)}.${id(name)}`,
      );
    }
    // Ponder's live-query notifier (GraphQL live queries, @ponder/client): its own function, as it
    // wrote it for the staging schema, renamed to the stable schema and its channel
    // (pg_get_functiondef quotes the schema only when it must)
    const definition = fn[0].definition
      .replace(/^CREATE OR REPLACE FUNCTION \S+\.live_query_notify\(\)/m, `CREATE OR REPLACE FUNCTION ${id(target.viewsSchema)}.live_query_notify()`)
      .replaceAll(`'${target.stagingViewsSchema}_live_query'`, `'${target.viewsSchema}_live_query'`);
    if (!definition.includes(`FUNCTION ${id(target.viewsSchema)}.live_query_notify()`)) {
      throw new Error(`unexpected definition of ${target.stagingViewsSchema}.live_query_notify()`);
    }
    await client.query(definition);
    const trigger = id(`${target.viewsSchema}_live_query_notify`);
    if (previous && previous !== target.schema) {
      const old = `${id(previous)}."_ponder_checkpoint"`;
      const { rows } = await client.query<{ found: boolean }>("SELECT to_regclass($1) IS NOT NULL AS found", [old]);
      if (rows[0]?.found) await client.query(`DROP TRIGGER IF EXISTS ${trigger} ON ${old}`);
    }
    await client.query(
      `CREATE OR REPLACE TRIGGER ${trigger} AFTER INSERT OR UPDATE OR DELETE ON ${id(target.schema)}."_ponder_checkpoint"
       FOR EACH STATEMENT EXECUTE PROCEDURE ${id(target.viewsSchema)}.live_query_notify()`,
    );
    await client.query("COMMIT");
    return { views: tables.length, previous };
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}

export interface PublishWhenCaughtUpOptions extends PublishTarget {
  /** The chain's head block now (the indexer's RPC). */
  chainHead: () => Promise<bigint>;
  /** Publish once the schema is at most this many blocks behind the head. */
  maxLagBlocks: number;
  pollMs?: number;
  signal?: AbortSignal;
  onWaiting?: (indexed: number | null, head: bigint) => void;
  /** A failed poll or switch (tried again at the next poll). */
  onError?: (error: unknown) => void;
}

/**
 * Waits until `schema` has reached the chain head and the block the views show now (and Ponder
 * has published its staging views), then switches the stable views to it. Resolves with the switch, or undefined when aborted.
 */
export async function publishWhenCaughtUp(
  options: PublishWhenCaughtUpOptions,
): Promise<{ views: number; previous: string | null; block: number } | undefined> {
  const pollMs = options.pollMs ?? 1_000;
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 1 });
  try {
    while (!options.signal?.aborted) {
      try {
        const client = await pool.connect();
        let indexed: number | null;
        let shown: number | null;
        let staged: boolean;
        try {
          indexed = await indexedBlockOf(client, options.schema);
          shown = await indexedBlockOf(client, options.viewsSchema);
          const { rows } = await client.query<{ found: boolean }>("SELECT to_regprocedure($1) IS NOT NULL AS found", [
            `${id(options.stagingViewsSchema)}.live_query_notify()`,
          ]);
          staged = rows[0]?.found ?? false;
        } finally {
          client.release();
        }
        const head = await options.chainHead();
        // near the head, and never behind what the views show now (nothing shown may go back)
        if (staged && indexed !== null && head - BigInt(indexed) <= BigInt(options.maxLagBlocks) && indexed >= (shown ?? 0)) {
          return { ...(await switchViews(options)), block: indexed };
        }
        options.onWaiting?.(indexed, head);
      } catch (error) {
        // the database or the node is away for a moment, or a reader held a lock: try again
        options.onError?.(error);
      }
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
    return undefined;
  } finally {
    await pool.end();
  }
}
