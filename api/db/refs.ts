/** How a row is named in a path or a body: its uuid, or (for chain records) its on-chain token id. */
import { type Column, eq, type SQL } from "drizzle-orm";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A uint256 in decimal without leading zeros: at most 78 digits (2^256 - 1 has 78). */
export const TOKEN_ID = /^(0|[1-9]\d{0,77})$/;

export const isUuid = (value: string): boolean => UUID.test(value);
export const isTokenIdRef = (value: string): boolean => TOKEN_ID.test(value);

/** The row `ref` names, by its uuid or its token id; undefined for anything else. */
export async function findByRef<T>(
  ref: string,
  byId: (id: string) => Promise<T | undefined>,
  byTokenId: (tokenId: bigint) => Promise<T | undefined>,
): Promise<T | undefined> {
  if (isUuid(ref)) return byId(ref);
  if (isTokenIdRef(ref)) return byTokenId(BigInt(ref));
  return undefined;
}

/** The condition that selects the row `ref` names (by `id` or `tokenId`); undefined when it names none. */
export function refCondition(ref: string, columns: { id: Column; tokenId: Column }): SQL | undefined {
  if (isUuid(ref)) return eq(columns.id, ref);
  if (isTokenIdRef(ref)) return eq(columns.tokenId, ref);
  return undefined;
}
