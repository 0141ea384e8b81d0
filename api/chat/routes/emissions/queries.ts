import type { OffchainDb } from "../../../db/client";
import type { ChatChain } from "../../services/chain";
import { createEmissionsSource, scanEmissions } from "../../services/emissions";

/** One scan of the pod owner's emissions (candidate epochs from the index, amounts from the chain). */
export function scanPodEmissions(db: OffchainDb, chain: ChatChain, podId: bigint, fromEpoch?: bigint) {
  return scanEmissions(createEmissionsSource(db, chain), podId, fromEpoch);
}
