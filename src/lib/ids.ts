/**
 * Row ids for the indexer's tables. Pure: no Ponder imports, so the API and tests can use them.
 */

/** Id of a row that records one log: `${txHash}-${logIndex}` (unique per chain). */
export function eventId(txHash: string, logIndex: number | bigint): string {
  return `${txHash.toLowerCase()}-${logIndex}`;
}

/** The contract allows one owner claim per (pod, epoch). */
export function ownerClaimId(podId: bigint, epoch: bigint): string {
  return `owner-${podId}-${epoch}`;
}

/** The contract allows one voter claim per (voter, pod, epoch). */
export function voterClaimId(podId: bigint, epoch: bigint, voter: string): string {
  return `voter-${podId}-${epoch}-${voter.toLowerCase()}`;
}

export function claimId(kind: "owner" | "voter", podId: bigint, epoch: bigint, account: string): string {
  return kind === "owner" ? ownerClaimId(podId, epoch) : voterClaimId(podId, epoch, account);
}
