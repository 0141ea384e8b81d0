import { asc, isNotNull } from "drizzle-orm";
import { chain } from "../../db/chain";
import type { OffchainDb } from "../../db/client";
import { subnetDrafts } from "../../db/offchain";

/** Every indexed datanet (the indexer's `datanet` view), by id. */
export async function listIndexedSubnets(db: OffchainDb) {
  return db
    .select({
      id: chain.datanet.id,
      publishingFeeCORE: chain.datanet.publishingFeeCORE,
      emissionsPerEpochCORE: chain.datanet.emissionsPerEpochCORE,
      podCount: chain.datanet.podCount,
    })
    .from(chain.datanet)
    .orderBy(asc(chain.datanet.id));
}

/** The drafts of published datanets: their token id, name and description. */
export async function listPublishedSubnetDrafts(db: OffchainDb) {
  return db
    .select({
      id: subnetDrafts.id,
      tokenId: subnetDrafts.tokenId,
      name: subnetDrafts.subnetName,
      description: subnetDrafts.subnetDescription,
    })
    .from(subnetDrafts)
    .where(isNotNull(subnetDrafts.tokenId));
}
