/**
 * Every kind of record a verified transaction backs, declared once each (./kinds/): its
 * `verified_transactions.kind`, its contract and event, its check, re-check and undo. Adding a
 * kind is one declaration here plus its table; `record()` and the reorg reconciler follow.
 */
import type { RecordKind } from "./kind";
import { boost } from "./kinds/boost";
import { podMint } from "./kinds/pod-mint";
import { podRepublish } from "./kinds/pod-republish";
import { subnetParameter } from "./kinds/subnet-parameter";
import { subnetPublish } from "./kinds/subnet-publish";
import { subscriptionOrder } from "./kinds/subscription-order";
import { vote } from "./kinds/vote";

export const KINDS = { subnetPublish, podMint, subnetParameter, podRepublish, vote, boost, subscriptionOrder };

// biome-ignore lint/suspicious/noExplicitAny: a kind's claim is its own; the registry only reads names, stages, re-checks and undos
export type AnyRecordKind = RecordKind<any, unknown>;

/** The kinds in the order the reconciler settles them (by stage). */
export const RECORD_KINDS: readonly AnyRecordKind[] = Object.values(KINDS).sort((a, b) => a.stage - b.stage);

const byName = new Map(RECORD_KINDS.map((kind) => [kind.name, kind]));

/** The kind a stored `verified_transactions.kind` names; undefined for a name no declaration has. */
export function recordKindNamed(name: string): AnyRecordKind | undefined {
  return byName.get(name);
}
