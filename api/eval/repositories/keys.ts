import { and, asc, eq, isNull } from "drizzle-orm";
import type { OffchainDb } from "../../db/client";
import { evalAccounts, evalApiKeys } from "../../db/offchain/eval";
import { sha256Hex } from "../../lib/crypto";
import { newApiKey } from "../ids";

export interface IssuedKey {
  /** The key itself: shown once, never stored. */
  key: string;
  keyId: string;
  accountId: string;
  accountName: string;
  createdAt: Date;
}

type Executor = Pick<OffchainDb, "insert" | "select" | "update">;

async function insertKey(db: Executor, account: { id: string; name: string }, label: string | null): Promise<IssuedKey> {
  const key = newApiKey();
  const [row] = await db
    .insert(evalApiKeys)
    .values({ accountId: account.id, keyHash: sha256Hex(key), label })
    .returning({ id: evalApiKeys.id, createdAt: evalApiKeys.createdAt });
  return { key, keyId: row!.id, accountId: account.id, accountName: account.name, createdAt: row!.createdAt };
}

/** A new account holding one new key (`POST /keys`). */
export async function issueKeyForNewAccount(db: OffchainDb, accountName: string, label: string | null = null) {
  return db.transaction(async (tx) => {
    const [account] = await tx.insert(evalAccounts).values({ name: accountName }).returning();
    return insertKey(tx, account!, label);
  });
}

/** A new key for the account of that name, created when there is none (the oldest wins when names repeat). */
export async function issueKeyForAccountName(db: OffchainDb, accountName: string, label: string | null = null) {
  return db.transaction(async (tx) => {
    const [existing] = await tx
      .select()
      .from(evalAccounts)
      .where(eq(evalAccounts.name, accountName))
      .orderBy(asc(evalAccounts.createdAt), asc(evalAccounts.id))
      .limit(1);
    const account = existing ?? (await tx.insert(evalAccounts).values({ name: accountName }).returning())[0]!;
    return { ...(await insertKey(tx, account, label)), accountCreated: !existing };
  });
}

/** Marks a key revoked; true when it existed and was live. */
export async function revokeApiKey(db: OffchainDb, keyId: string, at: Date = new Date()): Promise<boolean> {
  const rows = await db
    .update(evalApiKeys)
    .set({ revokedAt: at })
    .where(and(eq(evalApiKeys.id, keyId), isNull(evalApiKeys.revokedAt)))
    .returning({ id: evalApiKeys.id });
  return rows.length > 0;
}
