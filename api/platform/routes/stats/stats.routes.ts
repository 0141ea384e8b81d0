/** Stats routes (spec §4.1). */
import { z } from "@hono/zod-openapi";
import { chainReady } from "../../../http/middleware";
import { dataEnvelope, errorResponse, jsonContent } from "../../../http/openapi";
import { routeKind } from "../../../http/route";
import { EXAMPLE } from "../../schemas/examples";
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
    averageLockedPerUser: z
      .number()
      .openapi({ description: "totalCoreLocked / distinct wallets holding an open lock" }),
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
    userAccessCount: z
      .number()
      .int()
      .openapi({ description: "Wallets that hold bought access (the owner not counted)" }),
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

/**
 * The stats routes read chain tables and a price feed; the stats key (`statsKeyAuth`) is mounted on
 * the `/stats/*` prefix, so the kind names only its `security`.
 */
const statsErrors = {
  429: errorResponse("Rate limit exceeded"),
  503: errorResponse("Indexer not ready, or price feed unavailable"),
};
const route = routeKind({ tags: ["Stats"], middleware: [chainReady], responses: statsErrors });
const keyed = routeKind({
  tags: ["Stats"],
  middleware: [chainReady],
  security: STATS_KEY_SECURITY,
  responses: { 401: errorResponse("Missing or unknown stats key"), ...statsErrors },
});

const networkStats = jsonContent(dataEnvelope(NetworkStatsSchema), "Network statistics");

export const publicStatsRoute = route("get", "/stats", "publicStats", {
  summary: "Network statistics (public)",
  description: "Public at present: the stats key protects only paths below /stats/.",
  responses: { 200: networkStats },
});

export const statsSummaryRoute = keyed("get", "/stats/summary", "statsSummary", {
  summary: "Network statistics (stats key)",
  responses: { 200: networkStats },
});

export const subnetStatsRoute = keyed("get", "/stats/subnets/{id}", "subnetStats", {
  summary: "Statistics of a published datanet (stats key)",
  request: {
    params: z.object({
      id: z.string().openapi({ param: { name: "id", in: "path" }, description: "The datanet's id (or its tokenId)" }),
    }),
  },
  responses: {
    200: jsonContent(dataEnvelope(SubnetStatsSchema), "Datanet statistics"),
    404: errorResponse("Unknown or unpublished datanet"),
  },
});
