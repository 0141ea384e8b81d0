/** Vote handlers. */
import type { Hash } from "viem";
import { parseTokenAmount } from "../../../../chain/units";
import { badRequest } from "../../../http/errors";
import { type PlatformHandler, requireWallet } from "../../app-services";
import { presentPublicVote } from "../../presenters/engagement";
import * as votes from "../../repositories/votes";
import { assertPathMatch } from "../../schemas/common";
import { findListedPod } from "../../services/pod-drafts";
import { findPodRef, mintedTokenId, podNotFound } from "../../services/refs";
import { indexedPodExists, recordReportedVote } from "../../services/votes";
import type * as routes from "./votes.routes";

/**
 * Every indexed vote, also those never reported. A pod with metadata must be publicly listed (not
 * archived or banned); a chain-only pod can be named by its tokenId.
 */
export const listPublicPodVotes: PlatformHandler<typeof routes.publicPodVotesRoute> = async (c) => {
  const { podId, epoch } = c.req.valid("param");
  const { db, agents } = c.get("services");
  const pod = await findPodRef(db, podId);
  if (!pod || pod.tokenId === null) throw podNotFound();
  const listed = pod.draftId !== null ? Boolean(await findListedPod(db, pod.draftId)) : await indexedPodExists(db, pod.tokenId);
  if (!listed) throw podNotFound();
  const rows = await votes.listPodEpochVotes(db, { podTokenId: pod.tokenId, epoch, limit: agents.publicVotesMaxItems });
  return c.json({ data: { podVotes: rows.map(presentPublicVote) } }, 200);
};

export const reportVote: PlatformHandler<typeof routes.reportVoteRoute> = async (c) => {
  const { podId } = c.req.valid("param");
  const body = c.req.valid("json");
  const user = c.get("user");
  const { db, platform } = c.get("services");
  assertPathMatch("podId", body.podId, podId);
  const wallet = requireWallet(user);
  const amount = parseTokenAmount(body.votes);
  if (amount === undefined || amount === 0n) throw badRequest("votes: must be a positive amount with at most 18 decimals");
  const pod = await findPodRef(db, podId, { userId: user.id });
  if (!pod) throw podNotFound();
  const podTokenId = mintedTokenId(pod);
  const id = await recordReportedVote(db, platform, {
    txHash: body.txHash as Hash,
    claim: () => ({ wallet, podTokenId, epoch: BigInt(body.epoch), votes: amount, upVote: body.upVote }),
    by: { userId: user.id, podKey: pod.key },
  });
  return c.json({ data: { id } }, 200);
};
