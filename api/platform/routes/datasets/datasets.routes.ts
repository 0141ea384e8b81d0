/** The dataset download (spec §4.5). */
import { z } from "@hono/zod-openapi";
import { dataEnvelope, errorResponse, jsonContent } from "../../../http/openapi";
import { PublicPodSchema } from "../../presenters/pod";
import { SubnetIdParamsSchema } from "../../schemas/engagement";
import { AgentParamsSchema } from "../../schemas/common";
import { EXAMPLE } from "../../schemas/examples";
import { platformRoutes } from "../kinds";

const dateTime = z.string().openapi({ format: "date-time" });

export const DatasetVoteSchema = z
  .object({
    id: z.string().openapi({ description: "`${txHash}-${logIndex}`" }),
    podId: z.string().openapi({ description: "The pod's id" }),
    tokenId: z.number().int(),
    subnetTokenId: z.number().int().openapi({ description: "The datanet the vote counted for" }),
    voter: z.string(),
    userId: z.string().openapi({ description: "Platform user of the voter's wallet, else `wallet:<address>`" }),
    epoch: z.number().int(),
    votes: z.number(),
    votingPower: z.number(),
    upVote: z.boolean(),
    txHash: z.string(),
    createdAt: dateTime,
  })
  .openapi("DatasetVote", {
    example: {
      id: EXAMPLE.voteId,
      podId: EXAMPLE.podId,
      tokenId: 12,
      subnetTokenId: 3,
      voter: EXAMPLE.wallet,
      userId: EXAMPLE.userId,
      epoch: 4,
      votes: 120.5,
      votingPower: 1500,
      upVote: true,
      txHash: EXAMPLE.txHash,
      createdAt: EXAMPLE.updatedAt,
    },
  });

export const DatasetFeedbackSchema = z
  .object({
    id: z.string(),
    podId: z.string(),
    tokenId: z.number().int(),
    userId: z.string(),
    voter: z.string(),
    epoch: z.number().int(),
    upVote: z.boolean(),
    votes: z.number(),
    votingPower: z.number(),
    feedback: z.string(),
    voteId: z.string().nullable().openapi({
      description:
        "The vote (`<txHash>-<logIndex>`) an agent sent this feedback with; null for a user's feedback, which goes with all their votes on the pod in the epoch",
    }),
    agentId: z.string().nullable().openapi({ description: "The agent that sent it with its vote; null for a user's" }),
    createdAt: dateTime,
  })
  .openapi("DatasetFeedback", {
    example: {
      id: "c4d5e6f7-0a1b-4c2d-9e3f-4a5b6c7d8e9f",
      podId: EXAMPLE.podId,
      tokenId: 12,
      userId: EXAMPLE.userId,
      voter: EXAMPLE.wallet,
      epoch: 4,
      upVote: true,
      votes: 120.5,
      votingPower: 1500,
      feedback: "Complete series with clear sources; the 2012 gap is documented",
      voteId: null,
      agentId: null,
      createdAt: EXAMPLE.updatedAt,
    },
  });

export const DatasetEvofSchema = z
  .object({
    podId: z.string(),
    tokenId: z.number().int(),
    epoch: z.number().int(),
    voterCount: z.number().int().openapi({ description: "N" }),
    totalVotes: z.number().openapi({ description: "V, whole tokens" }),
    w: z.number().openapi({ description: "ln(N) × Σ(√VPᵢ · votesᵢ) / V; 0 when N ≤ 1 or V = 0" }),
    evof: z.number().openapi({ description: "W²" }),
  })
  .openapi("DatasetEvof", {
    example: { podId: EXAMPLE.podId, tokenId: 12, epoch: 4, voterCount: 3, totalVotes: 361.5, w: 42.17, evof: 1778.31 },
  });

export const DatasetSchema = z
  .object({
    feedback: z.array(DatasetFeedbackSchema),
    pods: z.array(PublicPodSchema),
    votes: z.array(DatasetVoteSchema),
    evofs: z.array(DatasetEvofSchema),
  })
  .openapi("Dataset");

export const getDatasetRoute = platformRoutes(["Agents"]).agentIndexed(
  "get",
  "/agents/{agentId}/subnets/{subnetId}/datasets",
  "getDataset",
  {
    summary: "Download a datanet's dataset (requires a VERIFIED, unexpired subscription order)",
    request: { params: AgentParamsSchema.extend(SubnetIdParamsSchema.shape) },
    responses: {
      200: jsonContent(dataEnvelope(DatasetSchema), "The dataset; each array holds at most DATASET_MAX_ITEMS entries"),
      403: errorResponse("Not the caller's own agentId, or `Subscription required`"),
      404: errorResponse("Datanet not found"),
      409: errorResponse(
        "`Payment not indexed yet; retry shortly` (with Retry-After): the order's payment is not in the indexed chain state yet",
      ),
      503: errorResponse(
        "`Indexer not ready`, or `Too many dataset downloads in progress; retry shortly` (with Retry-After): DATASET_MAX_CONCURRENT downloads are being built and DATASET_MAX_QUEUED wait",
      ),
    },
  },
);
