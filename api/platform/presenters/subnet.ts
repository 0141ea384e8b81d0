/** Response shapes of datanets (spec §2 "Datanet (Subnet)") and their presenters. */
import { z } from "@hono/zod-openapi";
import { toTokenNumber } from "../../../chain/units";
import type { SubnetWithChain } from "../repositories/subnets";
import { EXAMPLE } from "../schemas/examples";

export const SubnetSchema = z
  .object({
    id: z.string().openapi({ format: "uuid" }),
    subnetName: z.string(),
    subnetDescription: z.string(),
    thumbnailUrl: z.string().nullable().openapi({ description: "The draft's imageURL" }),
    nativeTokenAddress: z.string().openapi({ description: "Contract address of the primary token (lower-case)" }),
    nativeTokenSymbol: z.string(),
    nativeTokenDecimals: z.number().int(),
    tokenId: z.number().int().nullable().openapi({ description: "On-chain token id; null while draft" }),
    accessFeeCORE: z.number().openapi({ description: "Whole CORE; 0 while draft" }),
    emissionsPerEpochCORE: z.number(),
    emissionsPerEpochPrimaryToken: z.number(),
    status: z.enum(["draft", "active"]),
    upVoteVolume: z.number().openapi({ description: "Cumulative up-votes across the datanet's pods, whole tokens" }),
    downVoteVolume: z.number(),
    onboardingPublishers: z.string(),
    onboardingVoters: z.string(),
    createdByUserId: z.string().openapi({ description: "The creating user's id (for agent-created datanets: the agent's id)" }),
  })
  .openapi("Subnet", {
    example: {
      id: EXAMPLE.subnetId,
      subnetName: "Climate records",
      subnetDescription: "Open climate datasets, curated by vote",
      thumbnailUrl: "https://example.org/climate.png",
      nativeTokenAddress: EXAMPLE.primaryToken,
      nativeTokenSymbol: "CLIM",
      nativeTokenDecimals: 18,
      tokenId: 3,
      accessFeeCORE: 25,
      emissionsPerEpochCORE: 1000,
      emissionsPerEpochPrimaryToken: 500,
      status: "active",
      upVoteVolume: 4200,
      downVoteVolume: 150,
      onboardingPublishers: "Publish primary sources with a stable URL",
      onboardingVoters: "Vote for complete, well-documented series",
      createdByUserId: EXAMPLE.userId,
    },
  });

export type SubnetResponse = z.infer<typeof SubnetSchema>;

const tokens = (raw: bigint | null, decimals = 18) => (raw === null ? 0 : toTokenNumber(raw, decimals));

export function presentSubnet(row: SubnetWithChain): SubnetResponse {
  const published = row.tokenId !== null;
  return {
    id: row.id,
    subnetName: row.subnetName,
    subnetDescription: row.subnetDescription,
    thumbnailUrl: row.imageUrl,
    nativeTokenAddress: row.nativeTokenAddress,
    nativeTokenSymbol: row.nativeTokenSymbol,
    nativeTokenDecimals: row.nativeTokenDecimals,
    tokenId: published ? Number(row.tokenId) : null,
    accessFeeCORE: tokens(row.chainAccessFeeCORE),
    emissionsPerEpochCORE: tokens(row.chainEmissionsPerEpochCORE),
    // the primary token's emissions are in its own units; the demo token and CORE both use 18 decimals
    emissionsPerEpochPrimaryToken: tokens(row.chainEmissionsPerEpochPrimaryToken, row.nativeTokenDecimals),
    status: published ? "active" : "draft",
    upVoteVolume: tokens(row.chainUpVotes),
    downVoteVolume: tokens(row.chainDownVotes),
    onboardingPublishers: row.onboardingPublishers,
    onboardingVoters: row.onboardingVoters,
    createdByUserId: row.ownerUserId ?? row.createdByAgentId ?? "",
  };
}
