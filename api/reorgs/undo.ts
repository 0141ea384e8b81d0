/**
 * How each kind of off-chain record is undone when the transaction behind it leaves the
 * canonical chain. Each undo runs in the transaction that deletes the `verified_transactions`
 * row, so the hash is free again: the rightful owner can record what the chain says now (a
 * re-mined identical transaction included).
 */
import { sql, type SQL } from "drizzle-orm";
import { chain } from "../db/chain";

/** Undo statements per `verified_transactions.kind`, given the transaction hash (lower case). */
export const UNDO_BY_KIND: Record<string, (txHash: string) => SQL[]> = {
  // the draft is a draft again; public reads follow the chain's pod meanwhile
  "pod-mint": (txHash) => [
    sql`UPDATE offchain.pod_drafts SET token_id = NULL, mint_tx_hash = NULL, updated_at = now() WHERE mint_tx_hash = ${txHash}`,
  ],
  "subnet-publish": (txHash) => [
    sql`UPDATE offchain.subnet_drafts SET token_id = NULL, publish_tx_hash = NULL, updated_at = now() WHERE publish_tx_hash = ${txHash}`,
  ],
  "subnet-parameter": (txHash) => [sql`DELETE FROM offchain.subnet_parameter_updates WHERE tx_hash = ${txHash}`],
  // the pod's datanet follows the canonical chain again (its draft when it has metadata)
  "pod-republish": (txHash) => [
    sql`WITH gone AS (DELETE FROM offchain.pod_republishes WHERE tx_hash = ${txHash} RETURNING pod_draft_id)
        UPDATE offchain.pod_drafts d
           SET subnet_id = coalesce(
                 (SELECT coalesce(s.id::text, p.subnet_id::text)
                    FROM ${chain.pod} p LEFT JOIN offchain.subnet_drafts s ON s.token_id = p.subnet_id
                   WHERE p.id = d.token_id),
                 d.subnet_id),
               updated_at = now()
          FROM gone WHERE d.id = gone.pod_draft_id`,
  ],
  vote: (txHash) => [sql`DELETE FROM offchain.votes_reported WHERE tx_hash = ${txHash}`],
  boost: (txHash) => [sql`DELETE FROM offchain.boosts_reported WHERE tx_hash = ${txHash}`],
  "subscription-order": (txHash) => [sql`DELETE FROM offchain.subscription_orders WHERE tx_hash = ${txHash}`],
};
