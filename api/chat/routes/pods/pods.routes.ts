import { z } from "@hono/zod-openapi";
import { errorResponse, jsonBody, jsonContent } from "../../../http/openapi";
import { TITLE_MAX } from "../../services/post-metadata";
import { chatRoutes } from "../kinds";

const route = chatRoutes(["Pods"]);

const MINT_TX_EXAMPLE = `0x${"cd".repeat(32)}`;

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
  .openapi("MintRequest", {
    example: {
      tweetUrl: "https://x.com/alice/status/1790000000000000000",
      subnetHint: "Climate records",
      title: "Arctic sea ice hits a record low for January",
    },
  });

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
  .openapi("MintResponse", {
    example: {
      success: true,
      txHash: MINT_TX_EXAMPLE,
      podId: "12",
      title: "Arctic sea ice hits a record low for January",
      description: "Daily sea-ice extent data show the lowest January value since records began in 1979.",
      explorerUrl: `https://basescan.org/tx/${MINT_TX_EXAMPLE}`,
      category: "climate",
      subnetId: "3",
    },
  });

const PodEntry = z
  .object({
    podId: z.number().int(),
    subnetId: z.string().openapi({ description: "The datanet (token id) the pod is in now" }),
    mintTxHash: z.string(),
    createdAt: z.string().openapi({ format: "date-time" }),
    totalEmissions: z.number().openapi({ description: "CORE paid so far by the pod's owner claims, whole tokens" }),
    explorerUrl: z.string(),
  })
  .openapi("ChatPodEntry", {
    example: {
      podId: 12,
      subnetId: "3",
      mintTxHash: MINT_TX_EXAMPLE,
      createdAt: "2026-01-12T09:30:00.000Z",
      totalEmissions: 87.5,
      explorerUrl: `https://basescan.org/tx/${MINT_TX_EXAMPLE}`,
    },
  });

const PodList = z
  .object({ pods: z.array(PodEntry), count: z.number().int().openapi({ example: 1 }) })
  .openapi("ChatPodList");

export const mintRoute = route.walletIndexed("post", "/pods/mint", "mintPodFromPost", {
  summary: "Mint a pod from a social post; the server's wallet sends the transaction and the pod is the caller's",
  request: { body: jsonBody(MintRequest) },
  responses: {
    200: jsonContent(MintResponse, "Minted (podId null while confirming)"),
    400: errorResponse("Invalid tweetUrl, unknown datanet, post not found, or the post failed the quality check"),
    502: errorResponse("The post source could not be reached"),
    503: errorResponse("Chain, server wallet or indexer unavailable"),
  },
});

export const listPodsRoute = route.walletIndexed("get", "/pods", "listWalletPods", {
  summary: "The pods the caller's wallet owns, from indexed chain state",
  responses: { 200: jsonContent(PodList, "The wallet's pods") },
});
