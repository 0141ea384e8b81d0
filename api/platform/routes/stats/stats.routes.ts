/** Stats routes (spec §4.1). */
import { createRoute, z } from "@hono/zod-openapi";
import { chainReady } from "../../../http/middleware";
import { dataEnvelope, errorResponse, jsonContent } from "../../../http/openapi";
import { EXAMPLE } from "../../schemas/examples";

const tags = ["Stats"];
const dateTime = z.string().openapi({ format: "date-time" });

export const STATS_KEY_SECURITY = [{ statsKey: [] }];
export const STATS_KEY_SCHEME = {
  type: "http" as const,
  scheme: "bearer",
  description: "Stats API key, issued out of band (STATS_API_KEYS)",
};

export const NetworkStatsSchema = z
  .object({
    totalPods: z.number().int().openapi({ description: "Pods minted on chain" }),
    totalActiveSubnets: z.number().int().openapi({ description: "Published datanets with metadata" }),
    totalSubnetFees: z.number().openapi({ description: "Every CORE fee collected, whole CORE" }),
    totalSubnetFeesBurnt: z.number(),
    totalSubnetFeesAccumulatedToPerformancePool: z.number(),
    totalSubnetFeesLocked: z.number(),
    epochLengthSeconds: z.number().int(),
    governanceLocked: z.number().openapi({ description: "CORE in open locks of governance accounts" }),
    communityLocked: z.number().openapi({ description: "CORE in all other open locks" }),
    lastUpdatedAt: dateTime.openapi({ description: "Block time of the latest indexed block" }),
    corePriceUSD: z.number(),
    totalCoreLocked: z.number(),
    totalUsers: z.number().int().openapi({ description: "Platform users plus lock holders not linked to one" }),
    totalLocks: z.number().int().openapi({ description: "Open (not withdrawn) locks" }),
    averageLockedPerUser: z.number().openapi({ description: "totalCoreLocked / distinct wallets holding an open lock" }),
    activeSubnetIds: z.array(z.object({ id: z.string() })),
  })
  .openapi("NetworkStats", {
    example: {
      totalPods: 128,
      totalActiveSubnets: 6,
      totalSubnetFees: 5400,
      totalSubnetFeesBurnt: 1620,
      totalSubnetFeesAccumulatedToPerformancePool: 2160,
      totalSubnetFeesLocked: 1620,
      epochLengthSeconds: 172800,
      governanceLocked: 250000,
      communityLocked: 1150000,
      lastUpdatedAt: "2026-01-14T16:05:00.000Z",
      corePriceUSD: 0.42,
      totalCoreLocked: 1400000,
      totalUsers: 310,
      totalLocks: 402,
      averageLockedPerUser: 4516.13,
      activeSubnetIds: [{ id: EXAMPLE.subnetId }],
    },
  });

export const SubnetStatsSchema = z
  .object({
    id: z.string(),
    tokenId: z.number().int(),
    subnetName: z.string(),
    subnetDescription: z.string(),
    cumulativeUpVotes: z.number(),
    cumulativeDownVotes: z.number(),
    createdAt: dateTime.openapi({ description: "Block time of the datanet's publication" }),
    emissionsPerEpochCORE: z.number(),
    emissionsPerEpochPrimaryToken: z.number(),
    primaryTokenSymbol: z.string(),
    activePodCount: z.number().int().openapi({ description: "Pods valid for curation in the current epoch" }),
    userAccessCount: z.number().int().openapi({ description: "Wallets that hold bought access (the owner not counted)" }),
    coreSeedsBySubnetOwnerAmount: z.number(),
    publishingFeeCORE: z.number(),
    estimatedTotalPublishingFeeCollectedUSD: z.number(),
    accessFeeCORE: z.number(),
    estimatedTotalAccessFeeCollectedUSD: z.number(),
  })
  .openapi("SubnetStats", {
    example: {
      id: EXAMPLE.subnetId,
      tokenId: 3,
      subnetName: "Climate records",
      subnetDescription: "Open climate datasets, curated by vote",
      cumulativeUpVotes: 4200,
      cumulativeDownVotes: 150,
      createdAt: "2026-01-10T08:00:00.000Z",
      emissionsPerEpochCORE: 1000,
      emissionsPerEpochPrimaryToken: 500,
      primaryTokenSymbol: "CLIM",
      activePodCount: 18,
      userAccessCount: 7,
      coreSeedsBySubnetOwnerAmount: 5000,
      publishingFeeCORE: 10,
      estimatedTotalPublishingFeeCollectedUSD: 84,
      accessFeeCORE: 25,
      estimatedTotalAccessFeeCollectedUSD: 73.5,
    },
  });

const statsResponses = {
  200: jsonContent(dataEnvelope(NetworkStatsSchema), "Network statistics"),
  429: errorResponse("Rate limit exceeded"),
  503: errorResponse("Indexer not ready, or price feed unavailable"),
};

export const publicStatsRoute = createRoute({
  operationId: "publicStats",
  middleware: [chainReady] as const,
  method: "get",
  path: "/stats",
  tags,
  summary: "Network statistics (public)",
  description: "Public at present: the stats key protects only paths below /stats/.",
  responses: statsResponses,
});

export const statsSummaryRoute = createRoute({
  operationId: "statsSummary",
  middleware: [chainReady] as const,
  method: "get",
  path: "/stats/summary",
  tags,
  summary: "Network statistics (stats key)",
  security: STATS_KEY_SECURITY,
  responses: { ...statsResponses, 401: errorResponse("Missing or unknown stats key") },
});

export const subnetStatsRoute = createRoute({
  operationId: "subnetStats",
  middleware: [chainReady] as const,
  method: "get",
  path: "/stats/subnets/{id}",
  tags,
  summary: "Statistics of a published datanet (stats key)",
  security: STATS_KEY_SECURITY,
  request: {
    params: z.object({
      id: z.string().openapi({ param: { name: "id", in: "path" }, description: "The datanet's id (or its tokenId)" }),
    }),
  },
  responses: {
    200: jsonContent(dataEnvelope(SubnetStatsSchema), "Datanet statistics"),
    401: errorResponse("Missing or unknown stats key"),
    404: errorResponse("Unknown or unpublished datanet"),
    429: errorResponse("Rate limit exceeded"),
    503: errorResponse("Indexer not ready, or price feed unavailable"),
  },
});
