import type { OpenAPIHono, RouteHandler } from "@hono/zod-openapi";
import type { Hash } from "viem";
import { parseTokenAmount } from "../../../../chain/units";
import type { UserEnv } from "../../../http/auth/idp-cookie";
import { badRequest, notFound } from "../../../http/errors";
import type { AppEnv } from "../../../http/types";
import { userAuth } from "../../agents-auth";
import { agentsConfigOf, type AgentsDeps } from "../../agents-config";
import { chainReady, createPlatformRouter, platformContext, requireWallet } from "../../context";
import { presentPublicVote } from "../../presenters/engagement";
import { findListedPod } from "../../services/pod-drafts";
import {
  assertTransactionUnused,
  findPodRef,
  indexedPodExists,
  mintedTokenId,
  recordReportedVote,
  verifyVoteTransaction,
} from "../../services/votes";
import { assertPathMatch } from "../subnets/handlers";
import { IDP_COOKIE_SCHEME } from "../subnets/routes";
import { listPodEpochVotes } from "./queries";
import { publicPodVotesRoute, reportVoteRoute } from "./routes";

/** GET /public/pods/{podId}/votes/epochs/{epoch}, POST /pods/{podId}/votes. */
export function createVotesRouter(deps: AgentsDeps): OpenAPIHono<AppEnv> {
  const router = createPlatformRouter();
  router.openAPIRegistry.registerComponent("securitySchemes", "idpCookie", IDP_COOKIE_SCHEME);
  router.openapi({ ...publicPodVotesRoute, middleware: chainReady(deps) }, listPublicPodVotes(deps));
  router.openapi({ ...reportVoteRoute, middleware: userAuth(deps) }, reportVote(deps));
  return router;
}

const podNotFound = () => notFound("Pod not found");

/**
 * Every indexed vote, also those never reported. A pod with metadata must be publicly listed (not
 * archived or banned); a chain-only pod can be named by its tokenId.
 */
export function listPublicPodVotes(deps: AgentsDeps): RouteHandler<typeof publicPodVotesRoute, AppEnv> {
  const { publicVotesMaxItems } = agentsConfigOf(deps);
  return async (c) => {
    const { podId, epoch } = c.req.valid("param");
    const pod = await findPodRef(deps.db, podId);
    if (!pod || pod.tokenId === null) throw podNotFound();
    if (pod.draftId !== null ? !(await findListedPod(deps.db, pod.draftId)) : !(await indexedPodExists(deps.db, pod.tokenId))) {
      throw podNotFound();
    }
    const rows = await listPodEpochVotes(deps.db, { podTokenId: pod.tokenId, epoch, limit: publicVotesMaxItems });
    return c.json({ data: { podVotes: rows.map(presentPublicVote) } }, 200);
  };
}

export function reportVote(deps: AgentsDeps): RouteHandler<typeof reportVoteRoute, UserEnv> {
  const context = platformContext(deps);
  return async (c) => {
    const { podId } = c.req.valid("param");
    const body = c.req.valid("json");
    const user = c.get("user");
    assertPathMatch("podId", body.podId, podId);
    const wallet = requireWallet(user);
    const votes = parseTokenAmount(body.votes);
    if (votes === undefined || votes === 0n) throw badRequest("votes: must be a positive amount with at most 18 decimals");
    const pod = await findPodRef(deps.db, podId, { userId: user.id });
    if (!pod) throw podNotFound();
    const podTokenId = mintedTokenId(pod);
    await assertTransactionUnused(deps.db, body.txHash as Hash);
    const vote = await verifyVoteTransaction(context, {
      hash: body.txHash as Hash,
      voter: wallet,
      claim: { podTokenId, epoch: BigInt(body.epoch), votes, upVote: body.upVote },
    });
    const id = await recordReportedVote(deps.db, vote, { userId: user.id, podKey: pod.key });
    return c.json({ data: { id } }, 200);
  };
}
