/** Response shapes of the engagement routes (§2: Comment, Public pod vote, Lock). */
import { toTokenNumber } from "../../../chain/units";
import type { CommentRow } from "../repositories/comments";
import { walletUserId } from "../services/votes";

export function presentComment(row: CommentRow) {
  return {
    id: row.id,
    comment: row.comment,
    createdAt: row.createdAt.toISOString(),
    userName: row.username ?? row.walletAddress ?? "Anonymous",
    thumbnailURL: row.avatarUrl,
  };
}

export type IndexedVoteRow = {
  id: string;
  voter: string;
  epoch: bigint;
  votes: bigint;
  upVote: boolean;
  timestamp: bigint;
  userId: string | null;
};

export function presentPublicVote(row: IndexedVoteRow) {
  return {
    id: row.id,
    userId: row.userId ?? walletUserId(row.voter),
    votes: toTokenNumber(row.votes),
    createdAt: new Date(Number(row.timestamp) * 1000).toISOString(),
    voter: row.voter,
    epoch: Number(row.epoch),
    upVote: row.upVote,
  };
}

export function presentLock(row: { id: bigint; amount: bigint }) {
  return { id: row.id.toString(), tokenId: row.id.toString(), amount: row.amount.toString() };
}
