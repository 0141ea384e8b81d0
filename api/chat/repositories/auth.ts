import { and, eq, gt, isNull, lt } from "drizzle-orm";
import type { OffchainDb } from "../../db/client";
import { walletNonces } from "../../db/offchain";

export async function insertNonce(
  db: OffchainDb,
  values: { nonce: string; walletAddress: string; message: string; expiresAt: Date },
): Promise<void> {
  await db.insert(walletNonces).values(values);
}

export async function findNonce(db: OffchainDb, nonce: string) {
  const [row] = await db.select().from(walletNonces).where(eq(walletNonces.nonce, nonce)).limit(1);
  return row;
}

/** Marks the nonce used if it still is unused and unexpired; false when another request got there first. */
export async function consumeNonce(db: OffchainDb, nonce: string, wallet: string, now: Date): Promise<boolean> {
  const rows = await db
    .update(walletNonces)
    .set({ usedAt: now })
    .where(
      and(
        eq(walletNonces.nonce, nonce),
        eq(walletNonces.walletAddress, wallet),
        isNull(walletNonces.usedAt),
        gt(walletNonces.expiresAt, now),
      ),
    )
    .returning({ nonce: walletNonces.nonce });
  return rows.length === 1;
}

/** Drops nonces that expired over a day ago (they can no longer be used or replayed). */
export async function pruneNonces(db: OffchainDb, now: Date): Promise<void> {
  await db.delete(walletNonces).where(lt(walletNonces.expiresAt, new Date(now.getTime() - 24 * 60 * 60 * 1000)));
}
