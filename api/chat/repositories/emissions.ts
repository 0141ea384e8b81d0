import { and, asc, eq, lt } from "drizzle-orm";
import { chain } from "../../db/chain";
import type { OffchainDb } from "../../db/client";

/** The pod's indexed epochs before `before` (`podEpoch`), oldest first, with whether its owner share is claimed. */
export async function podEpochsBefore(db: OffchainDb, podId: bigint, before: bigint) {
  return db
    .select({ epoch: chain.podEpoch.epoch, ownerClaimed: chain.podEpoch.ownerClaimed })
    .from(chain.podEpoch)
    .where(and(eq(chain.podEpoch.podId, podId), lt(chain.podEpoch.epoch, before)))
    .orderBy(asc(chain.podEpoch.epoch));
}

/** The pod owner's indexed claims (`claim`, kind `owner`) of epochs before `before`. */
export async function ownerClaimsBefore(db: OffchainDb, podId: bigint, before: bigint) {
  return db
    .select({ epoch: chain.claim.epoch, core: chain.claim.coreAmount, primary: chain.claim.primaryAmount })
    .from(chain.claim)
    .where(and(eq(chain.claim.podId, podId), eq(chain.claim.kind, "owner"), lt(chain.claim.epoch, before)));
}
