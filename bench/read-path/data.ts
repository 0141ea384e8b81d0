/**
 * BENCHMARK DATA (generated, not indexed): rows shaped like indexed state, written straight into
 * Ponder's tables of a benchmark database, plus off-chain users / subnet_drafts / pod_drafts.
 *
 * The tables and the `chain` views are created by the real indexer (started once on a freshly
 * deployed devnet, then stopped); the off-chain tables by the real migrations. `grow(n)` appends
 * rows so that one database serves several sizes (1k first, then 100k).
 */
import pg from "pg";
import { sha256Hex } from "../../api/lib/crypto";
import { eventLogId } from "../../src/lib/event-log";

/** Columns of `schema.table` with their SQL types. */
async function columns(client: pg.Client, schema: string, table: string) {
  const { rows } = await client.query<{ column_name: string; data_type: string; is_nullable: string }>(
    `SELECT column_name, data_type, is_nullable FROM information_schema.columns
     WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position`,
    [schema, table],
  );
  if (rows.length === 0) throw new Error(`no table ${schema}.${table}`);
  return rows;
}

function defaultFor(type: string): string {
  if (type === "numeric" || type === "integer" || type === "bigint" || type === "smallint") return "0";
  if (type === "boolean") return "false";
  if (type.startsWith("timestamp")) return "now()";
  return "'0x0000000000000000000000000000000000000000'";
}

/**
 * INSERT INTO schema.table SELECT … FROM generate_series(from, to) AS g: `values` gives SQL
 * expressions (of `g`) for some columns; NOT NULL columns without one get a type default.
 */
async function fill(
  client: pg.Client,
  schema: string,
  table: string,
  from: number,
  to: number,
  values: Record<string, string>,
): Promise<void> {
  if (to < from) return;
  const cols = await columns(client, schema, table);
  const names: string[] = [];
  const exprs: string[] = [];
  for (const col of cols) {
    const expr = values[col.column_name] ?? (col.is_nullable === "NO" ? defaultFor(col.data_type) : undefined);
    if (expr === undefined) continue;
    names.push(`"${col.column_name}"`);
    exprs.push(expr);
  }
  for (const name of Object.keys(values)) {
    if (!cols.some((c) => c.column_name === name)) throw new Error(`${schema}.${table} has no column ${name}`);
  }
  await client.query(
    `INSERT INTO "${schema}"."${table}" (${names.join(", ")}) SELECT ${exprs.join(", ")} FROM generate_series(${from}, ${to}) AS g`,
  );
}

export const WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"];
/** Votes per pod; epochs 1..EPOCHS. */
export const VOTES_PER_POD = 10;
export const EPOCHS = 10;
/** Pods of the one "power user" (GET /me/pods). */
export const POWER_USER_PODS = 1_000;
export const POWER_USER_SUB = "bench-power-user";
/** The agent holding an indexed subscription to DATASET_SUBNET (GET …/datasets). */
export const BENCH_AGENT_ID = "00000000-0000-4000-8000-00000000a9e7";
export const BENCH_AGENT_CREDENTIAL = `agt_${"b".repeat(43)}`;
export const DATASET_SUBNET = 3;
/** Pods after this one never join DATASET_SUBNET (see grow). */
const DATASET_PODS_UNTIL = 1_000;

export interface BenchData {
  pods: number;
  votes: number;
  datanets: number;
  users: number;
}

const hexOf = (expr: string, width = 40) => `('0x' || lpad(to_hex(${expr}), ${width}, '0'))`;
const datanetsFor = (pods: number) => Math.max(10, Math.ceil(pods / 1_000));
const usersFor = (pods: number) => Math.max(100, Math.ceil(pods / 100));

/**
 * Grows the data set from `current` to `target` public pods (10 votes each). Datanets and users
 * grow with the pods (1 datanet per 1,000 pods, 1 user per 100 pods, at least 10 and 100).
 */
export async function grow(databaseUrl: string, ponderSchema: string, current: BenchData, target: number): Promise<BenchData> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const s = ponderSchema;
    const d0 = current.datanets;
    const d1 = datanetsFor(target);
    const u0 = current.users;
    const u1 = usersFor(target);
    const p0 = current.pods;
    const p1 = target;
    // datanet 1 + pod % d1, but DATASET_SUBNET takes no pod after the first DATASET_PODS_UNTIL:
    // the downloaded datanet has the same pods at every size, so the dataset route's growth is
    // the market's size, not its own answer's
    const subnetOf = (pod: string) =>
      `(CASE WHEN ${pod} > ${DATASET_PODS_UNTIL} AND 1 + ${pod} % ${d1} = ${DATASET_SUBNET} THEN 1 + (${pod} + 1) % ${d1} ELSE 1 + ${pod} % ${d1} END)`;
    await client.query("BEGIN");
    // Ponder's live-query triggers expect its own session; the indexer is stopped
    await client.query("SET LOCAL session_replication_role = replica");
    // users: wallet 0x…u (user 1 is the power user)
    await client.query(
      `INSERT INTO offchain.users (idp_subject, wallet_address, username)
       SELECT CASE WHEN g = 1 THEN '${POWER_USER_SUB}' ELSE 'bench-user-' || g END, ${hexOf("g")}, 'user ' || g
       FROM generate_series(${u0 + 1}, ${u1}) AS g`,
    );
    await fill(client, s, "datanet", d0 + 1, d1, {
      id: "g",
      owner: hexOf("g"),
      creator: hexOf("g"),
      primary_token: hexOf("1000000 + g"),
      publish_tx_hash: hexOf("g", 64),
      created_at: "1700000000 + g",
      block_number: "g",
      pod_count: `${Math.ceil(target / d1)}`,
    });
    await client.query(
      `INSERT INTO offchain.subnet_drafts (owner_user_id, subnet_creator_type, subnet_name, subnet_description,
         onboarding_publishers, onboarding_voters, subnet_goal, native_token_address, native_token_symbol,
         native_token_decimals, token_id, publish_tx_hash)
       SELECT (SELECT id FROM offchain.users WHERE idp_subject = 'bench-user-2'), 'individual',
         'datanet ' || g, 'generated datanet ' || g, 'p', 'v', 'goal', ${hexOf("1000000 + g")}, 'TK', 18, g,
         ${hexOf("g", 64)}
       FROM generate_series(${d0 + 1}, ${d1}) AS g`,
    );
    // pods: id g, datanet subnetOf(g), minted in epoch 1 + g % EPOCHS, valid 10 epochs
    await fill(client, s, "pod", p0 + 1, p1, {
      id: "g",
      owner: hexOf("1 + g % " + u1),
      subnet_id: subnetOf("g"),
      mint_subnet_id: subnetOf("g"),
      payer: hexOf("1 + g % " + u1),
      payment_token: hexOf("1000001"),
      mint_epoch: `1 + g % ${EPOCHS}`,
      validity_epoch: `10 + g % ${EPOCHS}`,
      mint_tx_hash: hexOf("g", 64),
      created_at: "1700000000 + g",
      block_number: "g",
      cumulative_up_votes: `${VOTES_PER_POD}`,
      voter_count: `${VOTES_PER_POD}`,
    });
    // drafts: pods 1..POWER_USER_PODS belong to the power user, the others round-robin
    await client.query(
      `INSERT INTO offchain.pod_drafts (owner_user_id, wallet_address, subnet_id, pod_name, url, platform, category,
         pod_description, token_id, mint_tx_hash, created_at)
       SELECT (SELECT id FROM offchain.users WHERE idp_subject =
           CASE WHEN g <= ${POWER_USER_PODS} THEN '${POWER_USER_SUB}' ELSE 'bench-user-' || (2 + g % (${u1} - 1)) END),
         ${hexOf("1 + g % " + u1)}, ${subnetOf("g")}::text,
         'pod ' || g || ' ' || (ARRAY[${WORDS.map((w) => `'${w}'`).join(",")}])[1 + (g / 7) % ${WORDS.length}] || ' ' || md5(g::text),
         'https://example.com/' || g, 'web', 'data', 'generated pod ' || g, g, ${hexOf("g", 64)},
         now() - interval '1 second' * (${p1} - g)
       FROM generate_series(${p0 + 1}, ${p1}) AS g`,
    );
    // votes: VOTES_PER_POD per pod, one per epoch
    await fill(client, s, "vote", p0 * VOTES_PER_POD + 1, p1 * VOTES_PER_POD, {
      id: `${hexOf("g", 64)} || '-0'`,
      pod_id: `1 + (g - 1) / ${VOTES_PER_POD}`,
      voter: hexOf(`1 + g % ${u1}`),
      subnet_id: subnetOf(`(1 + (g - 1) / ${VOTES_PER_POD})`),
      epoch: `1 + g % ${EPOCHS}`,
      votes: "1",
      up_vote: "true",
      voting_power: "100",
      tx_hash: hexOf("g", 64),
      block_number: "g",
      timestamp: "1700000000 + g",
    });
    if (p0 === 0) await subscribedAgent(client, s);
    // the last mint in the event log, as the indexer's PodMinted handler records it (the API's list stamp reads it)
    const lastBlockHash = `0x${p1.toString(16).padStart(64, "0")}`;
    await client.query(
      `INSERT INTO "${s}".event_log (id, block_number, log_index, block_hash, tx_hash, timestamp, kind, data)
       VALUES ($1, $2, 0, $3, $3, 0, 'pod_minted', $4)`,
      [eventLogId(BigInt(p1), 0, lastBlockHash), p1, lastBlockHash, JSON.stringify({ podId: String(p1) })],
    );
    await client.query("COMMIT");
    return { pods: p1, votes: p1 * VOTES_PER_POD, datanets: d1, users: u1 };
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}

/** The bench agent, its verified order for DATASET_SUBNET and the indexed access payment it names. */
async function subscribedAgent(client: pg.Client, s: string): Promise<void> {
  const tx = hexOf("424242", 64);
  await client.query(
    `INSERT INTO offchain.agents (id, name, description, credential_hash) VALUES ($1, 'bench agent', 'downloads datasets', $2)`,
    [BENCH_AGENT_ID, sha256Hex(BENCH_AGENT_CREDENTIAL)],
  );
  await client.query(
    `INSERT INTO offchain.subscription_orders (agent_id, subnet_id, subnet_token_id, package_id, wallet_address,
       subscription_days, amount, status, tx_hash, block_number, verified_at, expires_at)
     SELECT $1, id, token_id, 'bench', ${hexOf("1")}, 3650, 1, 'VERIFIED', ${tx}, 1, now(), now() + interval '3650 days'
     FROM offchain.subnet_drafts WHERE token_id = $2`,
    [BENCH_AGENT_ID, DATASET_SUBNET],
  );
  await fill(client, s, "subnet_access", 1, 1, {
    id: "'bench-access'",
    subnet_id: String(DATASET_SUBNET),
    account: hexOf("1"),
    payer: hexOf("1"),
    token: hexOf("1000001"),
    fee: "1",
    tx_hash: tx,
    log_index: "0",
    block_number: "1",
    timestamp: "1700000000",
  });
}

/** Statistics off for the generated tables: the figures are those "before ANALYZE" unless `analyze` runs. */
export async function disableAutovacuum(databaseUrl: string, ponderSchema: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (const table of [`"${ponderSchema}".pod`, `"${ponderSchema}".vote`, `"${ponderSchema}".datanet`, "offchain.pod_drafts", "offchain.users", "offchain.subnet_drafts"]) {
      await client.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
    }
  } finally {
    await client.end();
  }
}

export async function analyze(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("ANALYZE");
  } finally {
    await client.end();
  }
}
