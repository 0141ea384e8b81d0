/** Feedback handlers. */
import { parseTokenAmount, toTokenString } from "../../../../chain/units";
import { badRequest, conflict, HttpError } from "../../../http/errors";
import { assertChainReady } from "../../../http/readiness";
import { type PlatformHandler, requireWallet } from "../../app-services";
import * as feedback from "../../repositories/feedback";
import { assertPathMatch } from "../../schemas/common";
import { findPodRef, findSubnetRef, mintedTokenId, podNotFound } from "../../services/refs";
import { hasUnindexedReportedVote, walletVotesOnPod, type WalletVote } from "../../services/votes";
import type * as routes from "./feedback.routes";

function parseAmount(field: string, value: Parameters<typeof parseTokenAmount>[0]): bigint {
  const amount = parseTokenAmount(value);
  if (amount === undefined) throw badRequest(`${field}: must be an amount with at most 18 decimals`);
  return amount;
}

/** `votes` must be the sum of the matching votes and `votingPower` the voting power of one of them, exactly. */
function assertClaimMatches(matching: WalletVote[], votes: bigint, votingPower: bigint): void {
  const total = matching.reduce((sum, vote) => sum + vote.votes, 0n);
  if (total !== votes) throw badRequest(`votes does not match the wallet's on-chain votes (${toTokenString(total)})`);
  if (!matching.some((vote) => vote.votingPower === votingPower)) {
    const recorded = [...new Set(matching.map((vote) => toTokenString(vote.votingPower)))].join(", ");
    throw badRequest(`votingPower does not match the vote's on-chain voting power (${recorded})`);
  }
}

/** 409 with Retry-After: the caller reported a vote the indexer has not reached (or a reorg dropped). */
const VOTE_NOT_INDEXED_RETRY_SECONDS = 2;
const voteNotIndexed = () =>
  new HttpError(409, "Vote not indexed yet; retry shortly", { "Retry-After": String(VOTE_NOT_INDEXED_RETRY_SECONDS) });

/**
 * Stored only when the caller's wallet voted on the pod in that epoch in that direction, as the
 * indexer has it (canonical chain state; a reported vote not indexed yet answers 409 Retry-After): `votes` must equal the sum of those votes and `votingPower` the
 * voting power of one of them, exactly; `privateSubnetId` must name the subnet they counted for.
 */
export const createFeedback: PlatformHandler<typeof routes.createFeedbackRoute> = async (c) => {
  const { id } = c.req.valid("param");
  const body = c.req.valid("json");
  const user = c.get("user");
  const { db, pool, viewsSchema } = c.get("services");
  assertPathMatch("podId", body.podId, id);
  const wallet = requireWallet(user);
  const votes = parseAmount("votes", body.votes);
  const votingPower = parseAmount("votingPower", body.votingPower);

  const pod = await findPodRef(db, id, { userId: user.id });
  if (!pod) throw podNotFound();
  const podTokenId = mintedTokenId(pod);

  await assertChainReady(pool, viewsSchema, c.get("logger"));
  const direction = { voter: wallet, podTokenId, epoch: body.epoch, upVote: body.upVote };
  // a reported vote the indexer does not have (yet, or any more after a reorg) backs nothing: retry later
  if (await hasUnindexedReportedVote(db, direction)) throw voteNotIndexed();
  const matching = (await walletVotesOnPod(db, direction)).filter((vote) => vote.upVote === body.upVote);
  if (matching.length === 0) {
    throw badRequest(
      `No ${body.upVote ? "up" : "down"}-vote of the caller's wallet on this pod in epoch ${body.epoch}`,
    );
  }
  assertClaimMatches(matching, votes, votingPower);
  const subnet = await findSubnetRef(db, body.privateSubnetId, { userId: user.id });
  const subnetVote =
    subnet?.tokenId == null ? undefined : matching.find((vote) => vote.subnetTokenId === subnet.tokenId);
  if (!subnetVote) throw badRequest("privateSubnetId is not the datanet the vote counted for");

  const feedbackId = await feedback.insertFeedback(db, {
    userId: user.id,
    voter: wallet.toLowerCase(),
    podId: pod.key,
    podTokenId: podTokenId.toString(),
    subnetTokenId: subnetVote.subnetTokenId.toString(),
    epoch: body.epoch,
    votingPower: votingPower.toString(),
    upVote: body.upVote,
    privateSubnetId: body.privateSubnetId,
    votes: votes.toString(),
    feedback: body.feedback,
  });
  if (!feedbackId) throw conflict("Feedback already stored for this vote");
  return c.json({ data: { id: feedbackId } }, 201);
};
