import type { OpenAPIHono, RouteHandler } from "@hono/zod-openapi";
import { parseTokenAmount, toTokenString } from "../../../../chain/units";
import type { UserEnv } from "../../../http/auth/idp-cookie";
import { badRequest, conflict, notFound } from "../../../http/errors";
import { chainReady as isChainReady } from "../../../http/readiness";
import type { AppEnv } from "../../../http/types";
import { userAuth } from "../../agents-auth";
import type { AgentsDeps } from "../../agents-config";
import { createPlatformRouter, requireWallet } from "../../context";
import { findPodRef, findSubnetRef, mintedTokenId, walletVotesOnPod } from "../../services/votes";
import { assertPathMatch } from "../subnets/handlers";
import { IDP_COOKIE_SCHEME } from "../subnets/routes";
import { insertFeedback } from "./queries";
import { createFeedbackRoute } from "./routes";

/** POST /feedback/pods/{id}. */
export function createFeedbackRouter(deps: AgentsDeps): OpenAPIHono<AppEnv> {
  const router = createPlatformRouter();
  router.openAPIRegistry.registerComponent("securitySchemes", "idpCookie", IDP_COOKIE_SCHEME);
  router.openapi({ ...createFeedbackRoute, middleware: userAuth(deps) }, createFeedback(deps));
  return router;
}

/**
 * Stored only when the caller's wallet voted on the pod in that epoch in that direction (indexed
 * or verified reported votes): `votes` must equal the sum of those votes and `votingPower` the
 * voting power of one of them, exactly; `privateSubnetId` must name the datanet they counted for.
 */
export function createFeedback(deps: AgentsDeps): RouteHandler<typeof createFeedbackRoute, UserEnv> {
  return async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const user = c.get("user");
    assertPathMatch("podId", body.podId, id);
    const wallet = requireWallet(user);
    const votes = parseTokenAmount(body.votes);
    if (votes === undefined) throw badRequest("votes: must be an amount with at most 18 decimals");
    const votingPower = parseTokenAmount(body.votingPower);
    if (votingPower === undefined) throw badRequest("votingPower: must be an amount with at most 18 decimals");

    const pod = await findPodRef(deps.db, id, { userId: user.id });
    if (!pod) throw notFound("Pod not found");
    const podTokenId = mintedTokenId(pod);

    const includeIndexed = await isChainReady(deps.pool, deps.config.ponderViewsSchema).catch(() => false);
    const matching = (
      await walletVotesOnPod(deps.db, { voter: wallet, podTokenId, epoch: body.epoch, includeIndexed })
    ).filter((vote) => vote.upVote === body.upVote);
    if (matching.length === 0) {
      throw badRequest(
        `No ${body.upVote ? "up" : "down"}-vote of the caller's wallet on this pod in epoch ${body.epoch}`,
      );
    }
    const total = matching.reduce((sum, vote) => sum + vote.votes, 0n);
    if (total !== votes) {
      throw badRequest(`votes does not match the wallet's on-chain votes (${toTokenString(total)})`);
    }
    if (!matching.some((vote) => vote.votingPower === votingPower)) {
      const recorded = [...new Set(matching.map((vote) => toTokenString(vote.votingPower)))].join(", ");
      throw badRequest(`votingPower does not match the vote's on-chain voting power (${recorded})`);
    }
    const subnet = await findSubnetRef(deps.db, body.privateSubnetId, { userId: user.id });
    const subnetVote = subnet?.tokenId == null ? undefined : matching.find((vote) => vote.subnetTokenId === subnet.tokenId);
    if (!subnetVote) throw badRequest("privateSubnetId is not the datanet the vote counted for");

    const feedbackId = await insertFeedback(deps.db, {
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
}
