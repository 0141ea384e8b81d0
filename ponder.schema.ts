/**
 * Chain state indexed by Ponder (contracts: VeCore, SubnetManager, PodManager, CORE transfers
 * to the SubnetManager). Public contract: the API reads these tables through the views schema
 * `chain` (drizzle + `setDatabaseSchema(schema, "chain")` from @ponder/client). SQL names are
 * the snake_case of the names below (Ponder sets them), e.g. `datanetEpoch.positiveNetVotes`
 * is `chain.datanet_epoch.positive_net_votes`.
 *
 * Conventions: token amounts, ids, epochs and durations are `bigint` (raw uint256, wei);
 * timestamps are block timestamps in unix seconds (`bigint`); addresses and hashes are
 * lower-case hex; `txHash`/`logIndex` name the log that last created the row.
 */
import { index, onchainTable, primaryKey, relations } from "ponder";
import type { EventKind } from "./src/lib/event-log";
import type { ClaimKind, FeeKind, PoolKind, SubnetParam } from "./src/lib/enums";

// ---------------------------------------------------------------------------------------------
// Protocol
// ---------------------------------------------------------------------------------------------

/** Singleton (id = chain id): the deployment's addresses and protocol-wide parameters. */
export const protocol = onchainTable("protocol", (t) => ({
  id: t.integer().primaryKey(),
  coreToken: t.hex().notNull(),
  veCore: t.hex().notNull(),
  subnetManager: t.hex().notNull(),
  podManager: t.hex().notNull(),
  /** VeCore.genesis: epoch e covers [genesis + (e-1)*epochLength, genesis + e*epochLength). */
  epochGenesis: t.bigint(),
  epochLength: t.bigint(),
  minStakeDuration: t.bigint(),
  maxStakeDuration: t.bigint(),
  /** SubnetManager.subnetCreationFee (CORE), follows SubnetCreationFeeSet. */
  subnetCreationFee: t.bigint(),
  performancePool: t.hex(),
  burnAddress: t.hex(),
  /** PodManager.podValidityPeriod (epochs), follows PodValidityPeriodSet. */
  podValidityPeriod: t.bigint(),
  updatedAtBlock: t.bigint().notNull(),
}));

// ---------------------------------------------------------------------------------------------
// Datanets (SubnetManager)
// ---------------------------------------------------------------------------------------------

export const datanet = onchainTable(
  "datanet",
  (t) => ({
    /** subnetId = the datanet NFT's token id. */
    id: t.bigint().primaryKey(),
    /** Current NFT owner (follows ERC-721 Transfer). */
    owner: t.hex().notNull(),
    creator: t.hex().notNull(),
    primaryToken: t.hex().notNull(),
    creationFee: t.bigint().notNull(),
    accessFeeCORE: t.bigint().notNull(),
    accessFeePrimaryToken: t.bigint().notNull(),
    publishingFeeCORE: t.bigint().notNull(),
    publishingFeePrimaryToken: t.bigint().notNull(),
    republishingFeeCORE: t.bigint().notNull(),
    /** Latest value set (it applies from the epoch it was set in; history in datanetParameterUpdate). */
    emissionsPerEpochCORE: t.bigint().notNull(),
    emissionsPerEpochPrimaryToken: t.bigint().notNull(),
    /** = SubnetManager.emissionPool(id): seeds + boosts - emissions paid. */
    corePool: t.bigint().notNull(),
    primaryPool: t.bigint().notNull(),
    seededCoreByOwner: t.bigint().notNull(),
    seededPrimaryByOwner: t.bigint().notNull(),
    boostedCore: t.bigint().notNull(),
    emissionsPaidCore: t.bigint().notNull(),
    emissionsPaidPrimary: t.bigint().notNull(),
    /** Vote volume cast on pods while they were in this datanet (Voted.subnetId). */
    cumulativeUpVotes: t.bigint().notNull(),
    cumulativeDownVotes: t.bigint().notNull(),
    /** Pods minted into this datanet (republishes not counted). */
    podCount: t.integer().notNull(),
    /** Distinct accounts that bought access (the owner has access without buying). */
    accessHolderCount: t.integer().notNull(),
    publishTxHash: t.hex().notNull(),
    createdAt: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
  }),
  (table) => ({
    datanetOwnerIdx: index("datanet_owner_idx").on(table.owner),
    datanetPublishTxIdx: index("datanet_publish_tx_idx").on(table.publishTxHash),
  }),
);

/** Every SubnetParameterUpdated event. */
export const datanetParameterUpdate = onchainTable(
  "datanet_parameter_update",
  (t) => ({
    id: t.text().primaryKey(),
    subnetId: t.bigint().notNull(),
    param: t.text().$type<SubnetParam>().notNull(),
    value: t.bigint().notNull(),
    /** Epoch the value applies from (the contract's current epoch when set). */
    epoch: t.bigint().notNull(),
    txHash: t.hex().notNull(),
    logIndex: t.integer().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
  }),
  (table) => ({
    // (…, blockNumber, logIndex): the rate in force at an epoch is one backward index step (api/platform/repositories/claimable.ts)
    datanetParameterUpdateSubnetIdx: index("datanet_parameter_update_subnet_idx").on(
      table.subnetId,
      table.param,
      table.epoch,
      table.blockNumber,
      table.logIndex,
    ),
    datanetParameterUpdateTxIdx: index("datanet_parameter_update_tx_idx").on(table.txHash),
  }),
);

/** One row per access purchase (SubnetAccessGranted): `payer` paid `fee` of `token` for `account`. */
export const subnetAccess = onchainTable(
  "subnet_access",
  (t) => ({
    id: t.text().primaryKey(),
    subnetId: t.bigint().notNull(),
    account: t.hex().notNull(),
    payer: t.hex().notNull(),
    token: t.hex().notNull(),
    fee: t.bigint().notNull(),
    txHash: t.hex().notNull(),
    logIndex: t.integer().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
  }),
  (table) => ({
    subnetAccessSubnetIdx: index("subnet_access_subnet_idx").on(table.subnetId),
    subnetAccessAccountIdx: index("subnet_access_account_idx").on(table.account),
    subnetAccessPayerIdx: index("subnet_access_payer_idx").on(table.payer),
    subnetAccessTxIdx: index("subnet_access_tx_idx").on(table.txHash),
  }),
);

/** Accounts that hold bought access to a datanet (access never expires on-chain). */
export const subnetAccessHolder = onchainTable(
  "subnet_access_holder",
  (t) => ({
    subnetId: t.bigint().notNull(),
    account: t.hex().notNull(),
    purchaseCount: t.integer().notNull(),
    firstGrantedAt: t.bigint().notNull(),
    firstTxHash: t.hex().notNull(),
    lastGrantedAt: t.bigint().notNull(),
  }),
  (table) => ({
    pk: primaryKey({ columns: [table.subnetId, table.account] }),
    subnetAccessHolderAccountIdx: index("subnet_access_holder_account_idx").on(table.account),
  }),
);

/** SubnetBoosted: CORE added to a datanet's pool by anyone (a targeted stake). */
export const boost = onchainTable(
  "boost",
  (t) => ({
    id: t.text().primaryKey(),
    subnetId: t.bigint().notNull(),
    staker: t.hex().notNull(),
    amount: t.bigint().notNull(),
    txHash: t.hex().notNull(),
    logIndex: t.integer().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
  }),
  (table) => ({
    boostSubnetIdx: index("boost_subnet_idx").on(table.subnetId),
    boostStakerIdx: index("boost_staker_idx").on(table.staker),
    boostTxIdx: index("boost_tx_idx").on(table.txHash),
  }),
);

/** EmissionPoolSeeded: the datanet owner funding a pool. */
export const emissionSeed = onchainTable(
  "emission_seed",
  (t) => ({
    id: t.text().primaryKey(),
    subnetId: t.bigint().notNull(),
    from: t.hex().notNull(),
    token: t.hex().notNull(),
    pool: t.text().$type<PoolKind>().notNull(),
    amount: t.bigint().notNull(),
    txHash: t.hex().notNull(),
    logIndex: t.integer().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
  }),
  (table) => ({
    emissionSeedSubnetIdx: index("emission_seed_subnet_idx").on(table.subnetId),
    emissionSeedTxIdx: index("emission_seed_tx_idx").on(table.txHash),
  }),
);

/** FeeCollected: every protocol fee and its split (burnt + toPerformancePool + locked = amount). */
export const feeCollection = onchainTable(
  "fee_collection",
  (t) => ({
    id: t.text().primaryKey(),
    subnetId: t.bigint().notNull(),
    kind: t.text().$type<FeeKind>().notNull(),
    token: t.hex().notNull(),
    payer: t.hex().notNull(),
    amount: t.bigint().notNull(),
    burnt: t.bigint().notNull(),
    toPerformancePool: t.bigint().notNull(),
    locked: t.bigint().notNull(),
    txHash: t.hex().notNull(),
    logIndex: t.integer().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
  }),
  (table) => ({
    feeCollectionSubnetIdx: index("fee_collection_subnet_idx").on(table.subnetId, table.kind),
    feeCollectionTokenIdx: index("fee_collection_token_idx").on(table.token),
    feeCollectionPayerIdx: index("fee_collection_payer_idx").on(table.payer),
    feeCollectionTxIdx: index("fee_collection_tx_idx").on(table.txHash),
  }),
);

/** Fee totals per token (`locked` = SubnetManager.lockedFees(token)). */
export const feeTotal = onchainTable("fee_total", (t) => ({
  token: t.hex().primaryKey(),
  amount: t.bigint().notNull(),
  burnt: t.bigint().notNull(),
  toPerformancePool: t.bigint().notNull(),
  locked: t.bigint().notNull(),
  count: t.integer().notNull(),
}));

/** CORE `Transfer`s whose recipient is the SubnetManager (every fee, seed, boost and package payment in CORE). */
export const paymentTransfer = onchainTable(
  "payment_transfer",
  (t) => ({
    id: t.text().primaryKey(),
    from: t.hex().notNull(),
    to: t.hex().notNull(),
    amount: t.bigint().notNull(),
    txHash: t.hex().notNull(),
    logIndex: t.integer().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
  }),
  (table) => ({
    paymentTransferFromIdx: index("payment_transfer_from_idx").on(table.from),
    paymentTransferTxIdx: index("payment_transfer_tx_idx").on(table.txHash),
  }),
);

// ---------------------------------------------------------------------------------------------
// Pods and votes (PodManager)
// ---------------------------------------------------------------------------------------------

export const pod = onchainTable(
  "pod",
  (t) => ({
    /** podId = the pod NFT's token id. */
    id: t.bigint().primaryKey(),
    /** Current NFT owner (follows ERC-721 Transfer). */
    owner: t.hex().notNull(),
    /** Current datanet (changes on republish). */
    subnetId: t.bigint().notNull(),
    /** The datanet it was minted into. */
    mintSubnetId: t.bigint().notNull(),
    /** Who sent the mint (e.g. the chat server's wallet minting for a user). */
    payer: t.hex().notNull(),
    paymentToken: t.hex().notNull(),
    fee: t.bigint().notNull(),
    mintEpoch: t.bigint().notNull(),
    /** Last epoch the pod is valid for curation (renewed by republish). */
    validityEpoch: t.bigint().notNull(),
    /** Set by PodInvalidated: the pod earns nothing from this epoch on. */
    invalidFromEpoch: t.bigint(),
    invalidReason: t.text(),
    invalidatedBy: t.hex(),
    invalidatedTxHash: t.hex(),
    mintTxHash: t.hex().notNull(),
    createdAt: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
    cumulativeUpVotes: t.bigint().notNull(),
    cumulativeDownVotes: t.bigint().notNull(),
    republishCount: t.integer().notNull(),
    /** Distinct voters over all epochs. */
    voterCount: t.integer().notNull(),
    ownerClaimedCore: t.bigint().notNull(),
    ownerClaimedPrimary: t.bigint().notNull(),
    votersClaimedCore: t.bigint().notNull(),
    votersClaimedPrimary: t.bigint().notNull(),
  }),
  (table) => ({
    podOwnerIdx: index("pod_owner_idx").on(table.owner),
    // the public list filtered by datanet, newest first: an index range, not a sort of the datanet's pods
    podSubnetIdx: index("pod_subnet_idx").on(table.subnetId, table.id),
    podPayerIdx: index("pod_payer_idx").on(table.payer),
    podMintTxIdx: index("pod_mint_tx_idx").on(table.mintTxHash),
  }),
);

/** PodRepublished (the same or another datanet; validity renewed). */
export const podRepublish = onchainTable(
  "pod_republish",
  (t) => ({
    id: t.text().primaryKey(),
    podId: t.bigint().notNull(),
    owner: t.hex().notNull(),
    fromSubnetId: t.bigint().notNull(),
    toSubnetId: t.bigint().notNull(),
    fee: t.bigint().notNull(),
    /** Epoch of the republish. */
    epoch: t.bigint().notNull(),
    validityEpoch: t.bigint().notNull(),
    txHash: t.hex().notNull(),
    logIndex: t.integer().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
  }),
  (table) => ({
    podRepublishPodIdx: index("pod_republish_pod_idx").on(table.podId),
    podRepublishTxIdx: index("pod_republish_tx_idx").on(table.txHash),
  }),
);

/** Every Voted event (id `${txHash}-${logIndex}`). */
export const vote = onchainTable(
  "vote",
  (t) => ({
    id: t.text().primaryKey(),
    podId: t.bigint().notNull(),
    voter: t.hex().notNull(),
    subnetId: t.bigint().notNull(),
    epoch: t.bigint().notNull(),
    votes: t.bigint().notNull(),
    upVote: t.boolean().notNull(),
    /** The voter's VeCore voting power (= per-epoch vote budget) when voting. */
    votingPower: t.bigint().notNull(),
    txHash: t.hex().notNull(),
    logIndex: t.integer().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
  }),
  (table) => ({
    votePodEpochIdx: index("vote_pod_epoch_idx").on(table.podId, table.epoch),
    voteVoterEpochIdx: index("vote_voter_epoch_idx").on(table.voter, table.epoch),
    voteSubnetEpochIdx: index("vote_subnet_epoch_idx").on(table.subnetId, table.epoch),
    voteEpochIdx: index("vote_epoch_idx").on(table.epoch),
    voteTxIdx: index("vote_tx_idx").on(table.txHash),
  }),
);

/** Per pod and epoch: = podUpVotes / podDownVotes / podEpochSubnet; ownerClaimed = hasPodOwnerClaimedEmissions. */
export const podEpoch = onchainTable(
  "pod_epoch",
  (t) => ({
    podId: t.bigint().notNull(),
    epoch: t.bigint().notNull(),
    /** The datanet the pod's votes of this epoch count for (moves with a republish). */
    subnetId: t.bigint().notNull(),
    upVotes: t.bigint().notNull(),
    downVotes: t.bigint().notNull(),
    voterCount: t.integer().notNull(),
    ownerClaimed: t.boolean().notNull(),
  }),
  (table) => ({
    pk: primaryKey({ columns: [table.podId, table.epoch] }),
    podEpochEpochIdx: index("pod_epoch_epoch_idx").on(table.epoch, table.subnetId),
  }),
);

/** Per voter and epoch: = votesCastedByVoterForEpoch. */
export const voterEpoch = onchainTable(
  "voter_epoch",
  (t) => ({
    voter: t.hex().notNull(),
    epoch: t.bigint().notNull(),
    votesCast: t.bigint().notNull(),
    upVotes: t.bigint().notNull(),
    downVotes: t.bigint().notNull(),
    /** Voting power at the voter's last vote in the epoch. */
    votingPower: t.bigint().notNull(),
  }),
  (table) => ({
    pk: primaryKey({ columns: [table.voter, table.epoch] }),
    voterEpochEpochIdx: index("voter_epoch_epoch_idx").on(table.epoch),
  }),
);

/** Per voter, pod and epoch: = voterUpVotes / voterDownVotes; claimed = hasUserClaimedEmissions. */
export const voterPodEpoch = onchainTable(
  "voter_pod_epoch",
  (t) => ({
    voter: t.hex().notNull(),
    podId: t.bigint().notNull(),
    epoch: t.bigint().notNull(),
    upVotes: t.bigint().notNull(),
    downVotes: t.bigint().notNull(),
    claimed: t.boolean().notNull(),
  }),
  (table) => ({
    pk: primaryKey({ columns: [table.voter, table.podId, table.epoch] }),
    voterPodEpochPodIdx: index("voter_pod_epoch_pod_idx").on(table.podId, table.epoch),
    voterPodEpochVoterIdx: index("voter_pod_epoch_voter_idx").on(table.voter, table.epoch),
  }),
);

/** Per voter and pod over all epochs. */
export const voterPod = onchainTable(
  "voter_pod",
  (t) => ({
    voter: t.hex().notNull(),
    podId: t.bigint().notNull(),
    upVotes: t.bigint().notNull(),
    downVotes: t.bigint().notNull(),
    firstVotedAt: t.bigint().notNull(),
    lastVotedAt: t.bigint().notNull(),
  }),
  (table) => ({
    pk: primaryKey({ columns: [table.voter, table.podId] }),
    voterPodPodIdx: index("voter_pod_pod_idx").on(table.podId),
  }),
);

/**
 * Per datanet and epoch. upVotes/downVotes: volume cast into the datanet (Voted.subnetId);
 * positiveNetVotes = PodManager.subnetPositiveNetVotes (republish moves and invalidation included).
 */
export const datanetEpoch = onchainTable(
  "datanet_epoch",
  (t) => ({
    subnetId: t.bigint().notNull(),
    epoch: t.bigint().notNull(),
    upVotes: t.bigint().notNull(),
    downVotes: t.bigint().notNull(),
    positiveNetVotes: t.bigint().notNull(),
  }),
  (table) => ({
    pk: primaryKey({ columns: [table.subnetId, table.epoch] }),
    datanetEpochEpochIdx: index("datanet_epoch_epoch_idx").on(table.epoch),
  }),
);

/** PodOwnerEmissionsClaimed / VoterEmissionsClaimed; id `owner-${podId}-${epoch}` or `voter-${podId}-${epoch}-${voter}`. */
export const claim = onchainTable(
  "claim",
  (t) => ({
    id: t.text().primaryKey(),
    kind: t.text().$type<ClaimKind>().notNull(),
    podId: t.bigint().notNull(),
    epoch: t.bigint().notNull(),
    /** Who was paid: the pod's owner at claim time, or the voter. */
    account: t.hex().notNull(),
    /** Who sent the claim transaction. */
    sender: t.hex().notNull(),
    subnetId: t.bigint().notNull(),
    coreAmount: t.bigint().notNull(),
    primaryAmount: t.bigint().notNull(),
    txHash: t.hex().notNull(),
    logIndex: t.integer().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
  }),
  (table) => ({
    claimPodEpochIdx: index("claim_pod_epoch_idx").on(table.podId, table.epoch),
    claimAccountIdx: index("claim_account_idx").on(table.account),
    claimSubnetEpochIdx: index("claim_subnet_epoch_idx").on(table.subnetId, table.epoch),
    claimTxIdx: index("claim_tx_idx").on(table.txHash),
  }),
);

// ---------------------------------------------------------------------------------------------
// Locks (VeCore)
// ---------------------------------------------------------------------------------------------

/** A VeCore lock position (id = lockupId = the veCORE NFT's token id). */
export const lock = onchainTable(
  "lock",
  (t) => ({
    id: t.bigint().primaryKey(),
    /** Current NFT owner (follows ERC-721 Transfer); the last owner once withdrawn. */
    owner: t.hex().notNull(),
    /** Locked CORE (stays at the withdrawn amount after withdrawal; see `withdrawn`). */
    amount: t.bigint().notNull(),
    expiresAt: t.bigint().notNull(),
    votingPower: t.bigint().notNull(),
    withdrawn: t.boolean().notNull(),
    withdrawnTo: t.hex(),
    txHash: t.hex().notNull(),
    createdAt: t.bigint().notNull(),
    updatedAt: t.bigint().notNull(),
  }),
  (table) => ({
    lockOwnerIdx: index("lock_owner_idx").on(table.owner),
  }),
);

/** VeCore.isGovernanceAccount (locks of these accounts count as governance-locked). */
export const governanceAccount = onchainTable("governance_account", (t) => ({
  address: t.hex().primaryKey(),
  isGovernance: t.boolean().notNull(),
  updatedAt: t.bigint().notNull(),
}));

// ---------------------------------------------------------------------------------------------
// Event log (the Platform API's event stream, GET /api/v1/events)
// ---------------------------------------------------------------------------------------------

/**
 * One row per protocol event the stream shows (src/events.ts), in chain order: the order key is
 * (blockNumber, logIndex). `id` = `${blockNumber}-${logIndex}-${16 hex digits of the block hash}`
 * (src/lib/event-log.ts): stable, and a re-mined event after a reorg gets another id. Rows of a
 * reorged block are removed by Ponder like every other row.
 */
export const eventLog = onchainTable(
  "event_log",
  (t) => ({
    id: t.text().primaryKey(),
    blockNumber: t.bigint().notNull(),
    logIndex: t.integer().notNull(),
    blockHash: t.hex().notNull(),
    txHash: t.hex().notNull(),
    timestamp: t.bigint().notNull(),
    /** datanet_published, pod_minted, pod_republished, pod_invalidated, vote, emissions_claimed, access_granted, lock_* */
    kind: t.text().$type<EventKind>().notNull(),
    /** The event's fields (amounts and ids as decimal strings, addresses lower case). */
    data: t.json().$type<Record<string, unknown>>().notNull(),
  }),
  (table) => ({
    eventLogOrderIdx: index("event_log_order_idx").on(table.blockNumber, table.logIndex),
    // the API's list stamp reads the last event of each kind that changes the public list (count-cache.ts)
    eventLogKindIdx: index("event_log_kind_idx").on(table.kind, table.blockNumber),
  }),
);

/**
 * What an event concerns, one row per subject (`datanet:<id>`, `pod:<id>`, `wallet:<address>`):
 * the stream's filters read (topic, blockNumber, logIndex) in order. id = `${eventId}|${topic}`.
 */
export const eventLogTopic = onchainTable(
  "event_log_topic",
  (t) => ({
    id: t.text().primaryKey(),
    eventId: t.text().notNull(),
    topic: t.text().notNull(),
    blockNumber: t.bigint().notNull(),
    logIndex: t.integer().notNull(),
  }),
  (table) => ({
    eventLogTopicOrderIdx: index("event_log_topic_order_idx").on(table.topic, table.blockNumber, table.logIndex),
  }),
);

// ---------------------------------------------------------------------------------------------
// Relations (GraphQL and drizzle relational queries)
// ---------------------------------------------------------------------------------------------

export const datanetRelations = relations(datanet, ({ many }) => ({
  pods: many(pod),
  epochs: many(datanetEpoch),
  parameterUpdates: many(datanetParameterUpdate),
  accessPurchases: many(subnetAccess),
  accessHolders: many(subnetAccessHolder),
  boosts: many(boost),
  emissionSeeds: many(emissionSeed),
  fees: many(feeCollection),
}));

export const datanetParameterUpdateRelations = relations(datanetParameterUpdate, ({ one }) => ({
  datanet: one(datanet, { fields: [datanetParameterUpdate.subnetId], references: [datanet.id] }),
}));

export const subnetAccessRelations = relations(subnetAccess, ({ one }) => ({
  datanet: one(datanet, { fields: [subnetAccess.subnetId], references: [datanet.id] }),
}));

export const subnetAccessHolderRelations = relations(subnetAccessHolder, ({ one }) => ({
  datanet: one(datanet, { fields: [subnetAccessHolder.subnetId], references: [datanet.id] }),
}));

export const boostRelations = relations(boost, ({ one }) => ({
  datanet: one(datanet, { fields: [boost.subnetId], references: [datanet.id] }),
}));

export const emissionSeedRelations = relations(emissionSeed, ({ one }) => ({
  datanet: one(datanet, { fields: [emissionSeed.subnetId], references: [datanet.id] }),
}));

export const feeCollectionRelations = relations(feeCollection, ({ one }) => ({
  datanet: one(datanet, { fields: [feeCollection.subnetId], references: [datanet.id] }),
}));

export const podRelations = relations(pod, ({ one, many }) => ({
  datanet: one(datanet, { fields: [pod.subnetId], references: [datanet.id] }),
  votes: many(vote),
  epochs: many(podEpoch),
  republishes: many(podRepublish),
  claims: many(claim),
}));

export const podRepublishRelations = relations(podRepublish, ({ one }) => ({
  pod: one(pod, { fields: [podRepublish.podId], references: [pod.id] }),
}));

export const voteRelations = relations(vote, ({ one }) => ({
  pod: one(pod, { fields: [vote.podId], references: [pod.id] }),
  datanet: one(datanet, { fields: [vote.subnetId], references: [datanet.id] }),
}));

export const podEpochRelations = relations(podEpoch, ({ one }) => ({
  pod: one(pod, { fields: [podEpoch.podId], references: [pod.id] }),
  datanet: one(datanet, { fields: [podEpoch.subnetId], references: [datanet.id] }),
}));

export const voterPodEpochRelations = relations(voterPodEpoch, ({ one }) => ({
  pod: one(pod, { fields: [voterPodEpoch.podId], references: [pod.id] }),
}));

export const voterPodRelations = relations(voterPod, ({ one }) => ({
  pod: one(pod, { fields: [voterPod.podId], references: [pod.id] }),
}));

export const datanetEpochRelations = relations(datanetEpoch, ({ one }) => ({
  datanet: one(datanet, { fields: [datanetEpoch.subnetId], references: [datanet.id] }),
}));

export const claimRelations = relations(claim, ({ one }) => ({
  pod: one(pod, { fields: [claim.podId], references: [pod.id] }),
  datanet: one(datanet, { fields: [claim.subnetId], references: [datanet.id] }),
}));
