/** Votes (spec §4.2 public pod votes, §4.4 vote reporting). */
import { z } from "@hono/zod-openapi";
import { dataEnvelope, errorResponse, jsonBody, jsonContent } from "../../../http/openapi";
import { EpochSchema, PodIdParamsSchema, TokenAmountSchema } from "../../schemas/engagement";
import { TxHashSchema } from "../../schemas/drafts";
import { EXAMPLE } from "../../schemas/examples";
import { engagementRoutes, platformRoutes } from "../kinds";

export const PublicPodVoteSchema = z
  .object({
    id: z.string().openapi({ description: "`${txHash}-${logIndex}` of the Voted event" }),
    userId: z.string().openapi({
      description: "The platform user linked to the voter's wallet, else `wallet:<lower-case address>`",
    }),
    votes: z.number().openapi({ description: "Whole tokens" }),
    createdAt: z.iso.datetime().openapi({ description: "Block time of the vote" }),
    voter: z.string().openapi({ description: "Voter wallet, lower-case" }),
    epoch: z.number().int(),
    upVote: z.boolean(),
  })
  .openapi("PublicPodVote", {
    example: {
      id: EXAMPLE.voteId,
      userId: EXAMPLE.userId,
      votes: 120.5,
      createdAt: EXAMPLE.updatedAt,
      voter: EXAMPLE.wallet,
      epoch: 4,
      upVote: true,
    },
  });

export const ReportVoteBodySchema = z
  .object({
    podId: z.string().min(1).max(100).openapi({ description: "Must equal the path's podId" }),
    epoch: EpochSchema,
    votes: TokenAmountSchema.openapi({
      description: "Weighted votes, whole tokens; must equal the on-chain amount exactly",
    }),
    upVote: z.boolean(),
    txHash: TxHashSchema,
  })
  .openapi("ReportVoteBody", {
    example: { podId: EXAMPLE.podId, epoch: 4, votes: 120.5, upVote: true, txHash: EXAMPLE.txHash },
  });

export const publicPodVotesRoute = platformRoutes(["Pods"]).indexed(
  "get",
  "/public/pods/{podId}/votes/epochs/{epoch}",
  "publicPodVotes",
  {
    summary: "Every indexed vote on a pod in an epoch, in chain order",
    request: {
      params: PodIdParamsSchema.extend({ epoch: EpochSchema.openapi({ param: { name: "epoch", in: "path" } }) }),
    },
    responses: {
      200: jsonContent(dataEnvelope(z.object({ podVotes: z.array(PublicPodVoteSchema) })), "The votes"),
      400: errorResponse("Invalid epoch"),
      404: errorResponse("Pod not found"),
    },
  },
);

export const reportVoteRoute = engagementRoutes.user("post", "/pods/{podId}/votes", "reportVote", {
  summary: "Record a confirmed on-chain vote of the caller's wallet",
  request: { params: PodIdParamsSchema, body: jsonBody(ReportVoteBodySchema) },
  responses: {
    200: jsonContent(
      dataEnvelope(z.object({ id: z.string().openapi({ example: EXAMPLE.voteId }) })),
      "Vote recorded; `id` is the public vote id",
    ),
    400: errorResponse("Invalid body, no wallet, or a txHash that does not prove this vote"),
    404: errorResponse("Pod not found"),
    409: errorResponse("Transaction already recorded"),
    503: errorResponse("Chain unavailable"),
  },
});
