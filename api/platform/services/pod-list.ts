/**
 * The public pod list (GET /public/pods): a page by `page`/`limit` or by an opaque `cursor`, with
 * the spec's pagination and the cursor of the next page.
 *
 * A cursor is the position after a page's last pod in the list's order (token id, newest first)
 * plus how many pods precede that position (so the response can still say its `page`) and a
 * fingerprint of the search and filters it was issued for. The page it names is a seek
 * (`token id < position`), so a crawl costs O(page) per request at any depth, and pods minted
 * during the crawl never shift it (they are above the position). It is not signed: any position
 * is public; the fingerprint only turns a cursor of another query into a 400 instead of a wrong page.
 */
import { createHash } from "node:crypto";
import type { OffchainDb } from "../../db/client";
import { badRequest } from "../../http/errors";
import * as pods from "../repositories/pods";
import { pagination } from "../schemas/common";

export type PublicPodListQuery = {
  page: number;
  limit: number;
  search?: string;
  epoch?: number;
  subnetRef?: string;
  cursor?: string;
};

const VERSION = "p1";
const FINGERPRINT_LENGTH = 12;
const CURSOR_TEXT = new RegExp(`^${VERSION}:(0|[1-9][0-9]{0,77}):(0|[1-9][0-9]{0,15}):([A-Za-z0-9_-]{${FINGERPRINT_LENGTH}})$`);

type Position = { after: bigint; offset: number };

/** The search and filters a cursor belongs to (the datanet by token id: its id and tokenId agree). */
export function fingerprint(search: string | undefined, epoch: number | undefined, subnetTokenId: bigint | undefined): string {
  const key = JSON.stringify([search ?? null, epoch ?? null, subnetTokenId?.toString() ?? null]);
  return createHash("sha256").update(key).digest("base64url").slice(0, FINGERPRINT_LENGTH);
}

export function encodeCursor({ after, offset }: Position, print: string): string {
  return Buffer.from(`${VERSION}:${after}:${offset}:${print}`).toString("base64url");
}

const invalidCursor = () => badRequest("Invalid cursor: pass the nextCursor of a previous page unchanged");

/** The cursor's position and fingerprint; a 400 for anything that is not a cursor this API issued. */
export function decodeCursor(cursor: string): Position & { print: string } {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) throw invalidCursor();
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const match = CURSOR_TEXT.exec(text);
  // the canonical encoding only (no trailing bits, no other spelling of the same text)
  if (!match || Buffer.from(text).toString("base64url") !== cursor) throw invalidCursor();
  const offset = Number(match[2]);
  if (!Number.isSafeInteger(offset)) throw invalidCursor();
  return { after: BigInt(match[1]!), offset, print: match[3]! };
}

export async function listPublicPodPage(db: OffchainDb, query: PublicPodListQuery) {
  const { page, limit, search, epoch } = query;
  // a cursor names its own page: a page number beside it would be a second answer to the same question
  if (query.cursor !== undefined && page !== 1) throw badRequest("Pass either cursor or page, not both");
  const position = query.cursor === undefined ? undefined : decodeCursor(query.cursor);

  let subnetTokenId: bigint | undefined;
  if (query.subnetRef) {
    subnetTokenId = await pods.publishedSubnetTokenId(db, query.subnetRef);
    // an unknown or unpublished subnet has no public pods
    if (subnetTokenId === undefined) {
      const shownPage = position ? Math.floor(position.offset / limit) + 1 : page;
      return { rows: [], pagination: pagination(shownPage, limit, 0), nextCursor: null };
    }
  }
  const print = fingerprint(search, epoch, subnetTokenId);
  if (position && position.print !== print) {
    throw badRequest("Invalid cursor: it belongs to another search or filters; pass the same ones as for its page");
  }

  const offset = position ? position.offset : (page - 1) * limit;
  const result = await pods.listPublicPods(db, {
    offset,
    limit,
    after: position?.after,
    search,
    epoch: epoch === undefined ? undefined : BigInt(epoch),
    subnetTokenId,
  });
  const start = result.start ?? offset;
  const last = result.rows.at(-1);
  const nextCursor =
    result.more && last?.tokenId ? encodeCursor({ after: BigInt(last.tokenId), offset: start + result.rows.length }, print) : null;
  const shownPage = position ? Math.floor(start / limit) + 1 : page;
  return { rows: result.rows, pagination: pagination(shownPage, limit, result.total), nextCursor };
}

