import MiniSearch from "minisearch";
import type { OffchainDb } from "../../db/client";
import { badRequest } from "../../http/errors";
import { listIndexedSubnets, listPublishedSubnetDrafts } from "../repositories/subnets";
import { processTerm } from "./search-terms";

/** A published datanet: on-chain state from the indexer, name and description from its draft. */
export interface SubnetInfo {
  id: bigint;
  /** The datanet's off-chain draft (its `privateSubnetId` on the Platform API), when it has one. */
  draftId: string | null;
  name: string;
  description: string;
  publishingFeeCORE: bigint;
  emissionsPerEpochCORE: bigint;
  podCount: number;
}

/** Every indexed datanet with its off-chain name ("Datanet #id" when no draft names it). */
export async function listSubnets(db: OffchainDb): Promise<SubnetInfo[]> {
  const [onchain, drafts] = await Promise.all([listIndexedSubnets(db), listPublishedSubnetDrafts(db)]);
  const named = new Map(drafts.map((d) => [String(d.tokenId), d]));
  return onchain.map((row) => {
    const draft = named.get(row.id.toString());
    return {
      id: row.id,
      draftId: draft?.id ?? null,
      name: draft?.name ?? `Datanet #${row.id}`,
      description: draft?.description ?? "",
      publishingFeeCORE: row.publishingFeeCORE,
      emissionsPerEpochCORE: row.emissionsPerEpochCORE,
      podCount: row.podCount,
    };
  });
}

export type SubnetChoice = { subnet: SubnetInfo; matchedBy: "hint" | "search" | "default" };

const normalize = (text: string) => text.trim().toLowerCase().replace(/\s+/g, " ");

/**
 * `subnetHint` as an id ("2", "#2") or a name (exact, case-insensitive; else the one datanet
 * whose name contains it). 400 when it names no datanet or several.
 */
export function resolveSubnetHint(hint: string, subnets: SubnetInfo[]): SubnetInfo {
  const text = normalize(hint);
  const idMatch = /^#?(\d{1,78})$/.exec(text);
  if (idMatch) {
    const found = subnets.find((d) => d.id === BigInt(idMatch[1]!));
    if (found) return found;
  }
  const exact = subnets.filter((d) => normalize(d.name) === text);
  if (exact.length === 1) return exact[0]!;
  const partial = subnets.filter((d) => normalize(d.name).includes(text));
  if (exact.length === 0 && partial.length === 1) return partial[0]!;
  if (exact.length > 1 || partial.length > 1) throw badRequest(`subnetHint "${hint.trim()}" matches several datanets; use its id`);
  throw badRequest(`Unknown datanet: ${hint.trim()}`);
}

/**
 * The datanet whose name and description best match the post (MiniSearch, BM25 with prefix and
 * fuzzy terms); without any match, the datanet with the most pods (then the lowest id).
 */
export function bestSubnetFor(text: string, subnets: SubnetInfo[]): SubnetChoice {
  if (subnets.length === 0) throw badRequest("No datanet is published yet to mint into");
  const index = new MiniSearch<{ id: string; name: string; description: string }>({
    fields: ["name", "description"],
    storeFields: ["id"],
    processTerm,
    searchOptions: { boost: { name: 2 }, prefix: true, fuzzy: 0.15, combineWith: "OR" },
  });
  index.addAll(subnets.map((d) => ({ id: d.id.toString(), name: d.name, description: d.description })));
  const [best] = index.search(text.slice(0, 2000));
  if (best) {
    const subnet = subnets.find((d) => d.id.toString() === best.id);
    if (subnet) return { subnet, matchedBy: "search" };
  }
  const fallback = [...subnets].sort((a, b) => b.podCount - a.podCount || (a.id < b.id ? -1 : 1))[0]!;
  return { subnet: fallback, matchedBy: "default" };
}
