import { createRoute, z } from "@hono/zod-openapi";
import { chainReady } from "../../../http/middleware";
import { walletAuth } from "../../middleware";
import { errorResponse, jsonContent } from "../../../http/openapi";
import { TITLE_MAX } from "../../services/post-metadata";

export const MintRequest = z
  .object({
    tweetUrl: z.string().max(4_000).openapi({
      description: "Full URL of the post: https://x.com/{handle}/status/{id} (twitter.com too)",
      example: "https://x.com/alice/status/1790000000000000000",
    }),
    subnetHint: z
      .string()
      .max(200)
      .refine((value) => value.trim().length > 0, "must not be blank")
      .optional()
      .openapi({ description: "Datanet name or id; when omitted the best-matching datanet is used" }),
    title: z
      .string()
      .max(TITLE_MAX)
      .refine((value) => value.trim().length > 0, "must not be blank")
      .optional()
      .openapi({ description: "At most 80 characters; generated when omitted" }),
    skipSlopCheck: z.boolean().optional().openapi({ description: "Default false; true skips the quality check" }),
  })
  .openapi("MintRequest");

const MintResponse = z
  .object({
    success: z.boolean(),
    txHash: z.string(),
    podId: z.string().nullable().openapi({ description: "On-chain token id; null while the mint is confirming" }),
    title: z.string(),
    description: z.string(),
    explorerUrl: z.string(),
    category: z.string(),
    subnetId: z.string().openapi({ description: "The datanet the pod was published into" }),
  })
  .openapi("MintResponse");

const PodEntry = z
  .object({
    podId: z.number().int(),
    subnetId: z.string().openapi({ description: "The datanet (token id) the pod is in now" }),
    mintTxHash: z.string(),
    createdAt: z.string().openapi({ format: "date-time" }),
    totalEmissions: z.number().openapi({ description: "CORE paid so far by the pod's owner claims, whole tokens" }),
    explorerUrl: z.string(),
  })
  .openapi("ChatPodEntry");

const PodList = z.object({ pods: z.array(PodEntry), count: z.number().int() }).openapi("ChatPodList");

const security = [{ walletSession: [] }];

export const mintRoute = createRoute({
  operationId: "mintPodFromPost",
  middleware: [walletAuth, chainReady] as const,
  method: "post",
  path: "/pods/mint",
  tags: ["Pods"],
  summary: "Mint a pod from a social post; the server's wallet sends the transaction and the pod is the caller's",
  security,
  request: { body: { content: { "application/json": { schema: MintRequest } }, required: true } },
  responses: {
    200: jsonContent(MintResponse, "Minted (podId null while confirming)"),
    400: errorResponse("Invalid tweetUrl, unknown datanet, post not found, or the post failed the quality check"),
    401: errorResponse("Missing, expired or invalid session token"),
    429: errorResponse("Rate limited"),
    502: errorResponse("The post source could not be reached"),
    503: errorResponse("Chain, server wallet or indexer unavailable"),
  },
});

export const listPodsRoute = createRoute({
  operationId: "listWalletPods",
  middleware: [walletAuth, chainReady] as const,
  method: "get",
  path: "/pods",
  tags: ["Pods"],
  summary: "The pods the caller's wallet owns, from indexed chain state",
  security,
  responses: {
    200: jsonContent(PodList, "The wallet's pods"),
    401: errorResponse("Missing, expired or invalid session token"),
    429: errorResponse("Rate limited"),
    503: errorResponse("Indexer not ready"),
  },
});
