import { z } from "@hono/zod-openapi";
import { errorResponse, jsonContent } from "../../../http/openapi";
import { chatRoutes } from "../kinds";

const route = chatRoutes(["Emissions"]);

const PodIdParam = z.object({
  podId: z.string().openapi({ param: { name: "podId", in: "path" }, description: "On-chain token id", example: "1" }),
});

const FromEpochQuery = z.object({
  fromEpoch: z
    .string()
    .optional()
    .openapi({
      param: { name: "fromEpoch", in: "query" },
      description: "First epoch to scan; default: the oldest epoch with something unclaimed",
      example: "1",
    }),
});

const EpochEntry = z
  .object({
    epoch: z.number().int(),
    amount: z.string().openapi({ description: "CORE, exact decimal string" }),
    claimed: z.boolean(),
    amountPrimaryToken: z
      .string()
      .optional()
      .openapi({ description: "The datanet's primary token, exact decimal string; present when non-zero" }),
  })
  .openapi("EmissionEpoch", {
    example: { epoch: 4, amount: "41.666666666666666666", claimed: false, amountPrimaryToken: "20.833333333333333333" },
  });

const EmissionsResponse = z
  .object({
    podId: z.number().int(),
    currentEpoch: z.number().int(),
    totalClaimable: z.string().openapi({ description: "CORE due over the scanned epochs, exact decimal string" }),
    epochs: z.array(EpochEntry),
    moreEpochsAvailable: z.boolean(),
    totalClaimablePrimaryToken: z.string().optional(),
  })
  .openapi("PodEmissions", {
    example: {
      podId: 12,
      currentEpoch: 6,
      totalClaimable: "83.333333333333333332",
      epochs: [
        { epoch: 4, amount: "41.666666666666666666", claimed: false, amountPrimaryToken: "20.833333333333333333" },
        { epoch: 5, amount: "41.666666666666666666", claimed: false, amountPrimaryToken: "20.833333333333333333" },
      ],
      moreEpochsAvailable: false,
      totalClaimablePrimaryToken: "41.666666666666666666",
    },
  });

const ClaimResponse = z
  .object({
    podId: z.number().int(),
    claimed: z.boolean(),
    totalClaimed: z.string().openapi({ description: "CORE paid by the claims, exact decimal string" }),
    txHashes: z.array(z.string()),
    moreEpochsAvailable: z.boolean(),
    totalClaimedPrimaryToken: z.string().optional(),
  })
  .openapi("PodEmissionsClaim", {
    example: {
      podId: 12,
      claimed: true,
      totalClaimed: "83.333333333333333332",
      txHashes: [`0x${"e1".repeat(32)}`, `0x${"e2".repeat(32)}`],
      moreEpochsAvailable: false,
      totalClaimedPrimaryToken: "41.666666666666666666",
    },
  });

const noSuchToken = errorResponse("No such token on-chain");

export const checkRoute = route.walletIndexed("get", "/pods/{podId}/emissions", "checkEmissions", {
  summary: "The pod owner's emissions per epoch (at most 50 epochs per call)",
  request: { params: PodIdParam, query: FromEpochQuery },
  responses: {
    200: jsonContent(EmissionsResponse, "Emissions of the scanned epochs"),
    400: errorResponse("Invalid podId or fromEpoch"),
    404: noSuchToken,
    503: errorResponse("Chain or indexer unavailable"),
  },
});

export const claimRoute = route.walletIndexed("post", "/pods/{podId}/emissions/claim", "claimEmissions", {
  summary: "Claim the pod owner's emissions: one transaction per unclaimed epoch (at most 50 epochs per call)",
  request: { params: PodIdParam, query: FromEpochQuery },
  responses: {
    200: jsonContent(ClaimResponse, "Claims sent and confirmed"),
    400: errorResponse("Invalid podId or fromEpoch, or nothing to claim"),
    403: errorResponse("The caller does not own the pod"),
    404: noSuchToken,
    503: errorResponse("Chain, server wallet or indexer unavailable"),
  },
});
