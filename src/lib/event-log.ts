/**
 * Ids and subjects of the event log (ponder.schema.ts `eventLog`, `eventLogTopic`), shared by
 * the indexer, which writes them, and the Platform API's stream, which reads them. Pure module.
 */

export const EVENT_KINDS = [
  "datanet_published",
  "pod_minted",
  "pod_republished",
  "pod_invalidated",
  "vote",
  "emissions_claimed",
  "access_granted",
  "lock_created",
  "lock_increased",
  "lock_extended",
  "lock_withdrawn",
] as const;

export type EventKind = (typeof EVENT_KINDS)[number];

/** Hex digits of the block hash in an id: a re-mined event (same block number, other block) gets another id. */
const HASH_DIGITS = 16;

/** `${blockNumber}-${logIndex}-${16 hex digits of the block hash}`. */
export function eventLogId(blockNumber: bigint, logIndex: number, blockHash: string): string {
  return `${blockNumber}-${logIndex}-${blockHash.slice(2, 2 + HASH_DIGITS).toLowerCase()}`;
}

export interface EventPosition {
  blockNumber: bigint;
  logIndex: number;
}

const ID_PATTERN = new RegExp(`^(\\d{1,20})-(\\d{1,9})-([0-9a-f]{${HASH_DIGITS}})$`);

/** The position an event id names, or undefined when it is not an event id. */
export function parseEventLogId(id: string): EventPosition | undefined {
  const match = ID_PATTERN.exec(id);
  if (!match) return undefined;
  return { blockNumber: BigInt(match[1]!), logIndex: Number(match[2]) };
}

/** Order of the stream: by block, then by log index. */
export function comparePositions(a: EventPosition, b: EventPosition): number {
  if (a.blockNumber !== b.blockNumber) return a.blockNumber < b.blockNumber ? -1 : 1;
  return a.logIndex - b.logIndex;
}

export type Topic = `datanet:${string}` | `pod:${string}` | `wallet:${string}`;

export const datanetTopic = (subnetId: bigint): Topic => `datanet:${subnetId}`;
export const podTopic = (podId: bigint): Topic => `pod:${podId}`;
export const walletTopic = (address: string): Topic => `wallet:${address.toLowerCase()}`;

/** Row id of an event's subject. */
export const eventLogTopicId = (eventId: string, topic: Topic): string => `${eventId}|${topic}`;
