import { sql } from "drizzle-orm";
import {
  boolean,
  check,
  index,
  integer,
  numeric,
  text,
  timestamp,
  unique,
  uuid,
} from "drizzle-orm/pg-core";
import { createdAt, lowerCase, offchain, searchDocument, updatedAt } from "./shared";

/** uint256 values (token IDs, raw wei amounts) kept exact as decimal strings. */
const uint256 = (name: string) => numeric(name, { precision: 78, scale: 0 });

export const users = offchain.table(
  "users",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    idpSubject: text("idp_subject").notNull().unique(),
    walletAddress: text("wallet_address").unique(),
    username: text("username"),
    avatarUrl: text("avatar_url"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [check("users_wallet_address_lower_case", lowerCase(t.walletAddress))],
);

export const agents = offchain.table(
  "agents",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    name: text("name").notNull(),
    description: text("description").notNull(),
    thumbnailUrl: text("thumbnail_url"),
    isOrchestrator: boolean("is_orchestrator").notNull().default(false),
    /**
     * The wallet the agent acts for: bound with the wallet's signature over a server nonce, or a
     * wallet the server generated on request (its key is returned once and never stored). Null
     * until one is bound. One wallet may back several agents, each bound with its own signature.
     */
    walletAddress: text("wallet_address"),
    /** When the current wallet was bound (null without a wallet). */
    walletBoundAt: timestamp("wallet_bound_at", { withTimezone: true }),
    /** sha-256 hex of the bearer credential; the credential itself is never stored. */
    credentialHash: text("credential_hash").notNull().unique(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check("agents_wallet_address_lower_case", lowerCase(t.walletAddress)),
    check("agents_wallet_bound_at", sql`(${t.walletAddress} is null) = (${t.walletBoundAt} is null)`),
    index("agents_wallet_address_idx").on(t.walletAddress),
  ],
);

/**
 * Nonces an agent's wallet binding is signed over: single use, short-lived, issued for one wallet
 * and either one existing agent (`agentId`) or the registration of a new one (null).
 */
export const agentWalletNonces = offchain.table(
  "agent_wallet_nonces",
  {
    nonce: uuid("nonce").primaryKey().defaultRandom(),
    walletAddress: text("wallet_address").notNull(),
    agentId: uuid("agent_id").references(() => agents.id, { onDelete: "cascade" }),
    message: text("message").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    check("agent_wallet_nonces_wallet_address_lower_case", lowerCase(t.walletAddress)),
    index("agent_wallet_nonces_expires_idx").on(t.expiresAt),
  ],
);

export const subnetDrafts = offchain.table(
  "subnet_drafts",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    ownerUserId: uuid("owner_user_id").references(() => users.id),
    createdByAgentId: uuid("created_by_agent_id").references(() => agents.id),
    subnetCreatorType: text("subnet_creator_type").notNull(),
    subnetName: text("subnet_name").notNull(),
    imageUrl: text("image_url"),
    subnetDescription: text("subnet_description").notNull(),
    onboardingPublishers: text("onboarding_publishers").notNull(),
    onboardingVoters: text("onboarding_voters").notNull(),
    subnetGoal: text("subnet_goal").notNull(),
    nativeTokenAddress: text("native_token_address").notNull(),
    nativeTokenSymbol: text("native_token_symbol").notNull(),
    nativeTokenDecimals: integer("native_token_decimals").notNull(),
    tokenId: uint256("token_id").unique(),
    publishTxHash: text("publish_tx_hash").unique(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check("subnet_drafts_creator_type", sql`${t.subnetCreatorType} in ('individual', 'team')`),
    check("subnet_drafts_has_owner", sql`${t.ownerUserId} is not null or ${t.createdByAgentId} is not null`),
    index("subnet_drafts_owner_user_idx").on(t.ownerUserId, t.createdAt),
    index("subnet_drafts_created_by_agent_idx").on(t.createdByAgentId),
    index("subnet_drafts_search_trgm_idx").using(
      "gin",
      sql`${searchDocument(t.subnetName, t.subnetDescription)} gin_trgm_ops`,
    ),
  ],
);

export const podDrafts = offchain.table(
  "pod_drafts",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    ownerUserId: uuid("owner_user_id").references(() => users.id),
    agentId: uuid("agent_id").references(() => agents.id),
    walletAddress: text("wallet_address"),
    /** The target datanet as given by the caller (draft id or on-chain token id). */
    subnetId: text("subnet_id").notNull(),
    podName: text("pod_name").notNull(),
    url: text("url").notNull(),
    platform: text("platform").notNull(),
    category: text("category").notNull(),
    podDescription: text("pod_description").notNull(),
    imageUrl: text("image_url"),
    thumbnailUrl: text("thumbnail_url"),
    pdfUrl: text("pdf_url"),
    videoUrl: text("video_url"),
    tokenId: uint256("token_id").unique(),
    mintTxHash: text("mint_tx_hash").unique(),
    archivedAt: timestamp("archived_at", { withTimezone: true }),
    banned: boolean("banned").notNull().default(false),
    banReason: text("ban_reason"),
    slopCheckSkipped: boolean("slop_check_skipped").notNull().default(false),
    source: text("source").notNull().default("platform"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check("pod_drafts_source", sql`${t.source} in ('platform', 'agent', 'chat')`),
    check("pod_drafts_wallet_address_lower_case", lowerCase(t.walletAddress)),
    index("pod_drafts_owner_user_idx").on(t.ownerUserId, t.createdAt),
    index("pod_drafts_agent_idx").on(t.agentId),
    index("pod_drafts_wallet_address_idx").on(t.walletAddress, t.createdAt),
    index("pod_drafts_subnet_idx").on(t.subnetId),
    // the public list (minted, not banned, not archived), joined to chain.pod by token id
    index("pod_drafts_listed_token_idx")
      .on(t.tokenId)
      .where(sql`${t.tokenId} is not null and ${t.banned} = false and ${t.archivedAt} is null`),
    index("pod_drafts_search_trgm_idx").using("gin", sql`${searchDocument(t.podName, t.podDescription)} gin_trgm_ops`),
  ],
);

export const podRepublishes = offchain.table(
  "pod_republishes",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    podDraftId: uuid("pod_draft_id")
      .notNull()
      .references(() => podDrafts.id),
    txHash: text("tx_hash").notNull().unique(),
    subnetTokenId: uint256("subnet_token_id").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("pod_republishes_pod_draft_idx").on(t.podDraftId, t.createdAt)],
);

export const subnetParameterUpdates = offchain.table(
  "subnet_parameter_updates",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    subnetDraftId: uuid("subnet_draft_id")
      .notNull()
      .references(() => subnetDrafts.id),
    param: text("param").notNull(),
    /** Raw wei, exact. */
    value: uint256("value").notNull(),
    txHash: text("tx_hash").notNull().unique(),
    createdAt: createdAt(),
  },
  (t) => [index("subnet_parameter_updates_subnet_param_idx").on(t.subnetDraftId, t.param, t.createdAt)],
);

export const comments = offchain.table(
  "comments",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    podId: text("pod_id").notNull(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    comment: text("comment").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("comments_pod_created_idx").on(t.podId, t.createdAt, t.id)],
);

/** Votes reported through the API (user or agent), each proven by its `Voted` event. */
export const votesReported = offchain.table(
  "votes_reported",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    /** The vote's public id, `${txHash}-${logIndex}` (as the indexer's `vote.id`). */
    voteId: text("vote_id").notNull().unique(),
    userId: uuid("user_id").references(() => users.id),
    agentId: uuid("agent_id").references(() => agents.id),
    /** The pod's draft id when it has metadata, else its token id. */
    podId: text("pod_id").notNull(),
    podTokenId: uint256("pod_token_id").notNull(),
    /** The datanet the vote counted for (Voted.subnetId). */
    subnetTokenId: uint256("subnet_token_id").notNull(),
    voter: text("voter").notNull(),
    epoch: integer("epoch").notNull(),
    /** Raw smallest-unit amounts, exact. */
    votes: uint256("votes").notNull(),
    votingPower: uint256("voting_power").notNull(),
    upVote: boolean("up_vote").notNull(),
    txHash: text("tx_hash").notNull().unique(),
    logIndex: integer("log_index").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    check("votes_reported_voter_lower_case", lowerCase(t.voter)),
    check("votes_reported_tx_hash_lower_case", lowerCase(t.txHash)),
    check("votes_reported_reporter", sql`${t.userId} is not null or ${t.agentId} is not null`),
    index("votes_reported_pod_epoch_idx").on(t.podTokenId, t.epoch, t.voter),
    index("votes_reported_user_epoch_idx").on(t.userId, t.epoch),
    index("votes_reported_agent_idx").on(t.agentId),
  ],
);

/** Written feedback stored alongside the caller wallet's vote(s) on a pod in an epoch, one per direction. */
export const feedback = offchain.table(
  "feedback",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    /** The wallet whose votes the feedback goes with. */
    voter: text("voter").notNull(),
    /** The pod's draft id when it has metadata, else its token id. */
    podId: text("pod_id").notNull(),
    podTokenId: uint256("pod_token_id").notNull(),
    /** The datanet the votes counted for. */
    subnetTokenId: uint256("subnet_token_id").notNull(),
    epoch: integer("epoch").notNull(),
    /** Raw smallest-unit amounts, equal to the chain's. */
    votingPower: uint256("voting_power").notNull(),
    upVote: boolean("up_vote").notNull(),
    /** As sent (the datanet's draft id or token id). */
    privateSubnetId: text("private_subnet_id").notNull(),
    votes: uint256("votes").notNull(),
    feedback: text("feedback").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    check("feedback_voter_lower_case", lowerCase(t.voter)),
    unique("feedback_voter_pod_epoch_direction").on(t.voter, t.podTokenId, t.epoch, t.upVote),
    index("feedback_pod_epoch_idx").on(t.podTokenId, t.epoch),
    index("feedback_subnet_idx").on(t.subnetTokenId, t.createdAt),
    index("feedback_user_idx").on(t.userId),
  ],
);

/** Targeted stakes (`/stakes/boost`), each proven by its `SubnetBoosted` event. */
export const boostsReported = offchain.table(
  "boosts_reported",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    /** The datanet's draft id when it has metadata, else its token id. */
    subnetId: text("subnet_id").notNull(),
    subnetTokenId: uint256("subnet_token_id").notNull(),
    staker: text("staker").notNull(),
    /** Decimal string exactly as submitted. */
    amount: text("amount").notNull(),
    /** The same amount in the smallest unit (= SubnetBoosted.amount). */
    amountRaw: uint256("amount_raw").notNull(),
    txHash: text("tx_hash").notNull().unique(),
    createdAt: createdAt(),
  },
  (t) => [
    check("boosts_reported_staker_lower_case", lowerCase(t.staker)),
    check("boosts_reported_tx_hash_lower_case", lowerCase(t.txHash)),
    index("boosts_reported_user_idx").on(t.userId),
    index("boosts_reported_subnet_idx").on(t.subnetTokenId),
  ],
);

/**
 * Subscription package orders: CREATED once the payment transaction is proven but has fewer
 * confirmations than required, VERIFIED (with `expiresAt`) once it has them.
 */
export const subscriptionOrders = offchain.table(
  "subscription_orders",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id),
    /** The datanet's draft id. */
    subnetId: text("subnet_id").notNull(),
    subnetTokenId: uint256("subnet_token_id").notNull(),
    packageId: text("package_id").notNull(),
    /** The wallet that paid (the agent's wallet at the time): later checks of the payment use it. */
    walletAddress: text("wallet_address").notNull(),
    /** Copied from the package when ordered. */
    subscriptionDays: integer("subscription_days").notNull(),
    /** CORE paid, raw (= the datanet's access fee at the payment's block). */
    amount: uint256("amount").notNull(),
    status: text("status").notNull().default("CREATED"),
    txHash: text("tx_hash").notNull().unique(),
    blockNumber: uint256("block_number").notNull(),
    verifiedAt: timestamp("verified_at", { withTimezone: true }),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check("subscription_orders_status", sql`${t.status} in ('CREATED', 'VERIFIED')`),
    check(
      "subscription_orders_verified_expiry",
      sql`(${t.status} = 'VERIFIED') = (${t.expiresAt} is not null and ${t.verifiedAt} is not null)`,
    ),
    check("subscription_orders_tx_hash_lower_case", lowerCase(t.txHash)),
    check("subscription_orders_wallet_address_lower_case", lowerCase(t.walletAddress)),
    index("subscription_orders_agent_subnet_idx").on(t.agentId, t.subnetId, t.expiresAt),
  ],
);

export const subnetSearchDocument = searchDocument(subnetDrafts.subnetName, subnetDrafts.subnetDescription);
export const podSearchDocument = searchDocument(podDrafts.podName, podDrafts.podDescription);
