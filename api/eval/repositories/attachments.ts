import type { OffchainDb } from "../../db/client";
import { evalAttachments } from "../../db/offchain/eval";

export async function insertUpload(
  db: OffchainDb,
  values: { accountId: string; key: string; filename: string; contentType: string; expiresAt: Date; createdAt: Date },
): Promise<void> {
  await db.insert(evalAttachments).values(values);
}
