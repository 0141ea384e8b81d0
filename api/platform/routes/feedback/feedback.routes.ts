/** Feedback stored alongside a vote (spec §4.4). */
import { z } from "@hono/zod-openapi";
import { dataEnvelope, errorResponse, jsonBody, jsonContent } from "../../../http/openapi";
import { EpochSchema, FeedbackPodParamsSchema } from "../../schemas/engagement";
import { EXAMPLE } from "../../schemas/examples";
import { engagementRoutes } from "../kinds";

export const FEEDBACK_MAX_LENGTH = 5_000;

export const FeedbackBodySchema = z
  .object({
    podId: z.string().min(1).max(100).openapi({ description: "Must equal the path's id" }),
    feedback: z.string().trim().min(1).max(FEEDBACK_MAX_LENGTH),
    epoch: EpochSchema,
    votingPower: z.number().finite().positive().openapi({
      description: "Whole tokens; must equal the voting power recorded with the wallet's vote exactly",
    }),
    upVote: z.boolean(),
    privateSubnetId: z.string().min(1).max(100).openapi({
      description: "The datanet the vote counted for: its id (uuid) or tokenId",
    }),
    votes: z.number().finite().positive().openapi({
      description: "Whole tokens; must equal the wallet's votes on the pod in the epoch in that direction exactly",
    }),
  })
  .openapi("FeedbackBody", {
    example: {
      podId: EXAMPLE.podId,
      feedback: "Complete series with clear sources; the 2012 gap is documented",
      epoch: 4,
      votingPower: 1500,
      upVote: true,
      privateSubnetId: EXAMPLE.subnetId,
      votes: 120.5,
    },
  });

export const createFeedbackRoute = engagementRoutes.user("post", "/feedback/pods/{id}", "createFeedback", {
  summary: "Store written feedback with the caller wallet's vote on a pod in an epoch",
  request: { params: FeedbackPodParamsSchema, body: jsonBody(FeedbackBodySchema) },
  responses: {
    201: jsonContent(
      dataEnvelope(z.object({ id: z.string().openapi({ example: "c4d5e6f7-0a1b-4c2d-9e3f-4a5b6c7d8e9f" }) })),
      "Feedback stored",
    ),
    400: errorResponse("Invalid body, no wallet, or no matching vote of the caller's wallet"),
    404: errorResponse("Pod not found"),
    409: errorResponse(
      "Feedback already stored for this vote; or the caller reported a vote the indexer does not have yet (`Vote not indexed yet; retry shortly`, with Retry-After)",
    ),
    503: errorResponse("Indexer not ready, or database unavailable"),
  },
});
