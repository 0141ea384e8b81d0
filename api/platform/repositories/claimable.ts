/**
 * SQL of a wallet's unclaimed emissions: the indexed rows PodManager's `podOwnerClaimable` and
 * `voterClaimable` read, for the pods the wallet owns now and the pods it up-voted.
 *
 * Cost: O(the wallet's rows). Every table is reached through an index: `pod_owner_idx` (pods the
 * wallet owns) → `pod_epoch` primary key (their epochs); `voter_pod_epoch_voter_idx` (voter,
 * epoch); then per row the primary keys of `pod_epoch`, `pod`, `datanet_epoch`, `datanet` and one
 * backward step of `datanet_parameter_update_subnet_idx` (subnetId, param, epoch, blockNumber,
 * logIndex) for each emission rate in force.
 */
import { sql } from "drizzle-orm";
import { chain } from "../../db/chain";
import type { Executor } from "./subnets";

/** One unclaimed share of `wallet`: the owner's share of a pod's epoch, or the voter's. */
export interface ClaimableRow {
  kind: "owner" | "voter";
  podId: bigint;
  epoch: bigint;
  /** The voter's up-votes on the pod in the epoch (0 for the owner's share). */
  voterUpVotes: bigint;
  /** podEpochSubnet: the datanet the pod's votes of the epoch count for. */
  subnetId: bigint;
  podUpVotes: bigint;
  podDownVotes: bigint;
  /** subnetPositiveNetVotes of that datanet and epoch. */
  subnetPositiveNetVotes: bigint;
  mintEpoch: bigint;
  validityEpoch: bigint;
  invalidFromEpoch: bigint | null;
  primaryToken: `0x${string}` | null;
  /** The last EmissionsPerEpochCORE / …PrimaryToken value set in an epoch <= the row's epoch (null: never set). */
  coreRate: bigint | null;
  primaryRate: bigint | null;
}

type RawRow = {
  kind: "owner" | "voter";
  pod_id: string;
  epoch: string;
  voter_up: string;
  subnet_id: string;
  up_votes: string;
  down_votes: string;
  positive_net_votes: string | null;
  mint_epoch: string;
  validity_epoch: string;
  invalid_from_epoch: string | null;
  primary_token: `0x${string}` | null;
  core_rate: string | null;
  primary_rate: string | null;
};

const big = (value: string | null): bigint | null => (value === null ? null : BigInt(value));

/** The rate of `param` in force for the row's datanet and epoch (Checkpoints.upperLookup: the latest push with key <= epoch). */
const rateAt = (param: "EmissionsPerEpochCORE" | "EmissionsPerEpochPrimaryToken") => sql`(
  SELECT u.value FROM ${chain.datanetParameterUpdate} u
   WHERE u.subnet_id = pe.subnet_id AND u.param = ${param} AND u.epoch <= pe.epoch
   ORDER BY u.epoch DESC, u.block_number DESC, u.log_index DESC
   LIMIT 1)`;

/** The statement behind `listClaimableRows` (exported for the index check of its plan). */
export function claimableRowsQuery(wallet: `0x${string}`, beforeEpoch: bigint) {
  return sql`
    WITH shares AS (
      SELECT 'owner'::text AS kind, o.pod_id, o.epoch, 0::numeric AS voter_up
        FROM ${chain.pod} p
        JOIN ${chain.podEpoch} o ON o.pod_id = p.id
       WHERE p.owner = ${wallet} AND o.epoch < ${beforeEpoch} AND NOT o.owner_claimed
      UNION ALL
      SELECT 'voter'::text, v.pod_id, v.epoch, v.up_votes
        FROM ${chain.voterPodEpoch} v
       WHERE v.voter = ${wallet} AND v.epoch < ${beforeEpoch} AND NOT v.claimed AND v.up_votes > 0
    )
    SELECT s.kind, s.pod_id::text, s.epoch::text, s.voter_up::text,
           pe.subnet_id::text, pe.up_votes::text, pe.down_votes::text,
           de.positive_net_votes::text,
           p.mint_epoch::text, p.validity_epoch::text, p.invalid_from_epoch::text,
           d.primary_token,
           ${rateAt("EmissionsPerEpochCORE")}::text AS core_rate,
           ${rateAt("EmissionsPerEpochPrimaryToken")}::text AS primary_rate
      FROM shares s
      JOIN ${chain.podEpoch} pe ON pe.pod_id = s.pod_id AND pe.epoch = s.epoch
      JOIN ${chain.pod} p ON p.id = s.pod_id
      LEFT JOIN ${chain.datanetEpoch} de ON de.subnet_id = pe.subnet_id AND de.epoch = pe.epoch
      LEFT JOIN ${chain.datanet} d ON d.id = pe.subnet_id
     ORDER BY s.pod_id, s.epoch, s.kind`;
}

/**
 * Block time (unix seconds) of the latest block the indexer has committed (Ponder's
 * `_ponder_checkpoint` in the views schema, advanced in the transaction that writes the block's
 * rows); undefined before the indexer has published it. Safe inside a transaction: nothing fails.
 */
export async function indexedBlockTime(db: Executor, viewsSchema: string): Promise<bigint | undefined> {
  const table = `"${viewsSchema.replaceAll('"', '""')}"."_ponder_checkpoint"`;
  const exists = await db.execute<{ ok: boolean }>(sql`SELECT to_regclass(${table}::text) IS NOT NULL AS ok`);
  if (exists.rows[0]?.ok !== true) return undefined;
  const result = await db.execute<{ latest: string | null }>(
    sql`SELECT max(substring(latest_checkpoint from 1 for 10)) AS latest FROM ${sql.identifier(viewsSchema)}."_ponder_checkpoint"`,
  );
  const latest = result.rows[0]?.latest;
  return latest ? BigInt(latest) : undefined;
}

/** `wallet`'s unclaimed owner and voter shares of epochs before `beforeEpoch` (lower-case address). */
export async function listClaimableRows(
  db: Executor,
  wallet: `0x${string}`,
  beforeEpoch: bigint,
): Promise<ClaimableRow[]> {
  const result = await db.execute<RawRow>(claimableRowsQuery(wallet, beforeEpoch));
  return result.rows.map((row) => ({
    kind: row.kind,
    podId: BigInt(row.pod_id),
    epoch: BigInt(row.epoch),
    voterUpVotes: BigInt(row.voter_up),
    subnetId: BigInt(row.subnet_id),
    podUpVotes: BigInt(row.up_votes),
    podDownVotes: BigInt(row.down_votes),
    subnetPositiveNetVotes: big(row.positive_net_votes) ?? 0n,
    mintEpoch: BigInt(row.mint_epoch),
    validityEpoch: BigInt(row.validity_epoch),
    invalidFromEpoch: big(row.invalid_from_epoch),
    primaryToken: row.primary_token,
    coreRate: big(row.core_rate),
    primaryRate: big(row.primary_rate),
  }));
}
