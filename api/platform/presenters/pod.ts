/** Response shapes of pods (spec §2 "UserPod", "PublicPod") and their presenters. */
import { z } from "@hono/zod-openapi";
import { toTokenNumber } from "../../../chain/units";
import type { PodWithChain, PublicPodRow } from "../repositories/pods";
import { EXAMPLE } from "../schemas/examples";

const dateTime = z.string().openapi({ format: "date-time" });

/** The fields the user's and the public pod examples share (same order as both schemas). */
const POD_EXAMPLE = {
  id: EXAMPLE.podId,
  name: "Arctic sea ice",
  description: "Daily sea-ice extent, 1979-today",
  tokenId: 12,
  privateSubnetId: EXAMPLE.subnetId,
  url: "https://example.org/ice",
  imageUrl: "https://example.org/ice.png",
  thumbnailUrl: null,
} as const;

export const UserPodSchema = z
  .object({
    id: z.string().openapi({ format: "uuid" }),
    name: z.string(),
    description: z.string(),
    tokenId: z.number().int().nullable().openapi({ description: "null until minted" }),
    privateSubnetId: z.string().openapi({ description: "The datanet's id" }),
    url: z.string().openapi({ format: "uri" }),
    imageUrl: z.string().nullable(),
    thumbnailUrl: z.string().nullable(),
    status: z.enum(["draft", "active", "archived"]),
    banned: z.boolean(),
    banReason: z.string().nullable(),
    podValidityEpoch: z.number().int().openapi({ description: "Last epoch the pod earns curation rewards; 0 while draft" }),
    cumulativeUpVotesVolume: z.number(),
    cumulativeDownVotesVolume: z.number(),
    createdAt: dateTime,
    updatedAt: dateTime,
  })
  .openapi("UserPod", {
    example: {
      ...POD_EXAMPLE,
      status: "active",
      banned: false,
      banReason: null,
      podValidityEpoch: 6,
      cumulativeUpVotesVolume: 1250.5,
      cumulativeDownVotesVolume: 40,
      createdAt: EXAMPLE.createdAt,
      updatedAt: EXAMPLE.updatedAt,
    },
  });

export const PodCreatorSchema = z
  .object({ id: z.string(), username: z.string().nullable(), avatarUrl: z.string().nullable() })
  .openapi("PodCreator", {
    example: { id: EXAMPLE.userId, username: "alice", avatarUrl: "https://example.org/alice.png" },
  });

export const PublicPodSchema = z
  .object({
    id: z.string().openapi({ format: "uuid" }),
    name: z.string(),
    description: z.string(),
    tokenId: z.number().int(),
    privateSubnetId: z.string(),
    url: z.string().openapi({ format: "uri" }),
    imageUrl: z.string().nullable(),
    thumbnailUrl: z.string().nullable(),
    videoUrl: z.string().nullable(),
    pdfUrl: z.string().nullable(),
    creator: PodCreatorSchema,
    createdAt: dateTime,
    updatedAt: dateTime,
    podValidityEpoch: z.number().int(),
    cumulativeUpVotesVolume: z.number(),
    cumulativeDownVotesVolume: z.number(),
  })
  .openapi("PublicPod", {
    example: {
      ...POD_EXAMPLE,
      videoUrl: null,
      pdfUrl: "https://example.org/ice-methods.pdf",
      creator: { id: EXAMPLE.userId, username: "alice", avatarUrl: "https://example.org/alice.png" },
      createdAt: EXAMPLE.createdAt,
      updatedAt: EXAMPLE.updatedAt,
      podValidityEpoch: 6,
      cumulativeUpVotesVolume: 1250.5,
      cumulativeDownVotesVolume: 40,
    },
  });

export type UserPodResponse = z.infer<typeof UserPodSchema>;
export type PublicPodResponse = z.infer<typeof PublicPodSchema>;

const tokens = (raw: bigint | null) => (raw === null ? 0 : toTokenNumber(raw));

/** draft → active once minted; archived once an agent archived it. Banned pods keep their status (see `banned`). */
export function podStatus(row: Pick<PodWithChain, "tokenId" | "archivedAt">): UserPodResponse["status"] {
  if (row.archivedAt) return "archived";
  return row.tokenId === null ? "draft" : "active";
}

export function presentUserPod(row: PodWithChain): UserPodResponse {
  return {
    id: row.id,
    name: row.podName,
    description: row.podDescription,
    tokenId: row.tokenId === null ? null : Number(row.tokenId),
    privateSubnetId: row.subnetId,
    url: row.url,
    imageUrl: row.imageUrl,
    thumbnailUrl: row.thumbnailUrl,
    status: podStatus(row),
    banned: row.banned,
    banReason: row.banReason,
    podValidityEpoch: row.chainValidityEpoch === null ? 0 : Number(row.chainValidityEpoch),
    cumulativeUpVotesVolume: tokens(row.chainUpVotes),
    cumulativeDownVotesVolume: tokens(row.chainDownVotes),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * The pod's creator: the user who created it; for agent-created pods the agent (its name and
 * thumbnail); for chat-server pods the user linked to the owner wallet, else `wallet:<address>`.
 */
export function presentCreator(row: PublicPodRow): z.infer<typeof PodCreatorSchema> {
  const c = row.creator;
  if (c.userId) return { id: c.userId, username: c.userName, avatarUrl: c.userAvatarUrl };
  if (c.agentId) return { id: c.agentId, username: c.agentName, avatarUrl: c.agentThumbnailUrl };
  if (c.walletUserId) return { id: c.walletUserId, username: c.walletUserName, avatarUrl: c.walletUserAvatarUrl };
  return { id: `wallet:${row.walletAddress ?? "unknown"}`, username: null, avatarUrl: null };
}

export function presentPublicPod(row: PublicPodRow): PublicPodResponse {
  return {
    id: row.id,
    name: row.podName,
    description: row.podDescription,
    tokenId: Number(row.tokenId),
    privateSubnetId: row.subnetId,
    url: row.url,
    imageUrl: row.imageUrl,
    thumbnailUrl: row.thumbnailUrl,
    videoUrl: row.videoUrl,
    pdfUrl: row.pdfUrl,
    creator: presentCreator(row),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    podValidityEpoch: row.chainValidityEpoch === null ? 0 : Number(row.chainValidityEpoch),
    cumulativeUpVotesVolume: tokens(row.chainUpVotes),
    cumulativeDownVotesVolume: tokens(row.chainDownVotes),
  };
}
