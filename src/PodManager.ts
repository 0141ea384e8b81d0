// PodManager: pods (NFTs), republishes, votes and their per-epoch aggregates, moderation, claims.
import { ponder } from "ponder:registry";
import {
  claim,
  datanet,
  datanetEpoch,
  pod,
  podEpoch,
  podRepublish,
  vote,
  voterEpoch,
  voterPod,
  voterPodEpoch,
} from "ponder:schema";
import type { Context } from "ponder:registry";
import { zeroAddress } from "viem";
import { claimId, eventId } from "./lib/ids";
import { applyInvalidation, applyRepublish, applyVote, type NetDelta } from "./lib/votes";
import { jsonArgs, recordEvent } from "./events";
import { ensureProtocol, epochOfBlock, setupProtocol, upsertProtocol } from "./protocol";

type Db = Context["db"];

/** Adds to a datanet's per-epoch row (creating it at zero). */
async function addToDatanetEpoch(
  db: Db,
  subnetId: bigint,
  epoch: bigint,
  add: { upVotes?: bigint; downVotes?: bigint; positiveNetVotes?: bigint },
) {
  const up = add.upVotes ?? 0n;
  const down = add.downVotes ?? 0n;
  const net = add.positiveNetVotes ?? 0n;
  await db
    .insert(datanetEpoch)
    .values({ subnetId, epoch, upVotes: up, downVotes: down, positiveNetVotes: net })
    .onConflictDoUpdate((row) => ({
      upVotes: row.upVotes + up,
      downVotes: row.downVotes + down,
      positiveNetVotes: row.positiveNetVotes + net,
    }));
}

async function applyNetDeltas(db: Db, epoch: bigint, deltas: NetDelta[]) {
  for (const { subnetId, delta } of deltas) {
    if (delta !== 0n) await addToDatanetEpoch(db, subnetId, epoch, { positiveNetVotes: delta });
  }
}

ponder.on("PodManager:setup", async ({ context }) => {
  await setupProtocol(context, "PodManager", BigInt(context.contracts.PodManager.startBlock ?? 0));
});

ponder.on("PodManager:PodValidityPeriodSet", async ({ event, context }) => {
  await upsertProtocol(context, event.block.number, { podValidityPeriod: event.args.epochs });
});

ponder.on("PodManager:PodMinted", async ({ event, context }) => {
  const { podId, owner, subnetId, payer, paymentToken, fee, mintEpoch, validityEpoch } = event.args;
  await ensureProtocol(context, event.block.number, ["PodManager"]);
  await context.db
    .insert(pod)
    .values({
      id: podId,
      owner,
      subnetId,
      mintSubnetId: subnetId,
      payer,
      paymentToken,
      fee,
      mintEpoch,
      validityEpoch,
      mintTxHash: event.transaction.hash,
      createdAt: event.block.timestamp,
      blockNumber: event.block.number,
      cumulativeUpVotes: 0n,
      cumulativeDownVotes: 0n,
      republishCount: 0,
      voterCount: 0,
      ownerClaimedCore: 0n,
      ownerClaimedPrimary: 0n,
      votersClaimedCore: 0n,
      votersClaimedPrimary: 0n,
    })
    .onConflictDoNothing();
  await context.db.update(datanet, { id: subnetId }).set((d) => ({ podCount: d.podCount + 1 }));
  await recordEvent(context, event, "pod_minted", jsonArgs(event.args), {
    datanets: [subnetId],
    pods: [podId],
    wallets: [owner, payer],
  });
});

// Ownership of a pod NFT (the mint is recorded by PodMinted).
ponder.on("PodManager:Transfer", async ({ event, context }) => {
  const { from, to, tokenId } = event.args;
  if (from === zeroAddress || to === zeroAddress) return;
  await context.db.update(pod, { id: tokenId }).set({ owner: to });
});

ponder.on("PodManager:PodRepublished", async ({ event, context }) => {
  const { podId, owner, subnetId: toSubnetId, previousSubnetId, fee, validityEpoch } = event.args;
  const { db } = context;
  const epoch = await epochOfBlock(context, event.block);

  // Votes the pod already has this epoch move with it (PodManager.republishPod).
  const current = await db.find(podEpoch, { podId, epoch });
  const { subnetId: votedIn, moves } = applyRepublish(current ?? undefined, toSubnetId);
  await applyNetDeltas(db, epoch, moves);
  if (current && votedIn !== current.subnetId) await db.update(podEpoch, { podId, epoch }).set({ subnetId: votedIn });

  await db
    .insert(podRepublish)
    .values({
      id: eventId(event.transaction.hash, event.log.logIndex),
      podId,
      owner,
      fromSubnetId: previousSubnetId,
      toSubnetId,
      fee,
      epoch,
      validityEpoch,
      txHash: event.transaction.hash,
      logIndex: event.log.logIndex,
      blockNumber: event.block.number,
      timestamp: event.block.timestamp,
    });
  await db
    .update(pod, { id: podId })
    .set((p) => ({ subnetId: toSubnetId, validityEpoch, republishCount: p.republishCount + 1 }));
  await recordEvent(context, event, "pod_republished", jsonArgs({ ...event.args, epoch }), {
    datanets: [toSubnetId, previousSubnetId],
    pods: [podId],
    wallets: [owner],
  });
});

ponder.on("PodManager:Voted", async ({ event, context }) => {
  const { podId, voter, subnetId, epoch, votes, upVote, votingPower } = event.args;
  const { db } = context;
  const timestamp = event.block.timestamp;
  const up = upVote ? votes : 0n;
  const down = upVote ? 0n : votes;

  await db
    .insert(vote)
    .values({
      id: eventId(event.transaction.hash, event.log.logIndex),
      podId,
      voter,
      subnetId,
      epoch,
      votes,
      upVote,
      votingPower,
      txHash: event.transaction.hash,
      logIndex: event.log.logIndex,
      blockNumber: event.block.number,
      timestamp,
    });

  // Each row is read and written by one upsert (the store's insert-or-update); whether it
  // existed is seen by its update callback, which the store calls synchronously.
  await recordEvent(context, event, "vote", jsonArgs(event.args), { datanets: [subnetId], pods: [podId], wallets: [voter] });

  const voteOf = { subnetId, votes, upVote };
  let votedBefore = false;
  await db
    .insert(voterPodEpoch)
    .values({ voter, podId, epoch, upVotes: up, downVotes: down, claimed: false })
    .onConflictDoUpdate((row) => {
      votedBefore = true;
      return { upVotes: row.upVotes + up, downVotes: row.downVotes + down };
    });

  const first = applyVote(undefined, voteOf);
  let netDelta = first.net.delta;
  await db
    .insert(podEpoch)
    .values({
      podId,
      epoch,
      subnetId: first.after.subnetId,
      upVotes: first.after.upVotes,
      downVotes: first.after.downVotes,
      voterCount: 1,
      ownerClaimed: false,
    })
    .onConflictDoUpdate((before) => {
      const { after, net } = applyVote(before, voteOf);
      netDelta = net.delta;
      return {
        subnetId: after.subnetId,
        upVotes: after.upVotes,
        downVotes: after.downVotes,
        voterCount: before.voterCount + (votedBefore ? 0 : 1),
      };
    });
  await addToDatanetEpoch(db, subnetId, epoch, { upVotes: up, downVotes: down, positiveNetVotes: netDelta });

  await db
    .insert(voterEpoch)
    .values({ voter, epoch, votesCast: votes, upVotes: up, downVotes: down, votingPower })
    .onConflictDoUpdate((row) => ({
      votesCast: row.votesCast + votes,
      upVotes: row.upVotes + up,
      downVotes: row.downVotes + down,
      votingPower,
    }));

  let votedPodBefore = false;
  await db
    .insert(voterPod)
    .values({ voter, podId, upVotes: up, downVotes: down, firstVotedAt: timestamp, lastVotedAt: timestamp })
    .onConflictDoUpdate((row) => {
      votedPodBefore = true;
      return { upVotes: row.upVotes + up, downVotes: row.downVotes + down, lastVotedAt: timestamp };
    });

  await db.update(pod, { id: podId }).set((p) => ({
    cumulativeUpVotes: p.cumulativeUpVotes + up,
    cumulativeDownVotes: p.cumulativeDownVotes + down,
    voterCount: p.voterCount + (votedPodBefore ? 0 : 1),
  }));
  await db.update(datanet, { id: subnetId }).set((d) => ({
    cumulativeUpVotes: d.cumulativeUpVotes + up,
    cumulativeDownVotes: d.cumulativeDownVotes + down,
  }));
});

ponder.on("PodManager:PodInvalidated", async ({ event, context }) => {
  const { podId, fromEpoch, moderator, reason } = event.args;
  const { db } = context;
  // The pod's positive net of the current epoch leaves its datanet (PodManager.invalidatePod).
  const current = await db.find(podEpoch, { podId, epoch: fromEpoch });
  const delta = applyInvalidation(current ?? undefined);
  if (delta) await applyNetDeltas(db, fromEpoch, [delta]);
  const invalidated = await db.find(pod, { id: podId });
  await recordEvent(context, event, "pod_invalidated", jsonArgs({ ...event.args, subnetId: invalidated?.subnetId, owner: invalidated?.owner }), {
    datanets: invalidated ? [invalidated.subnetId] : [],
    pods: [podId],
    wallets: [moderator, ...(invalidated ? [invalidated.owner] : [])],
  });
  await db.update(pod, { id: podId }).set({
    invalidFromEpoch: fromEpoch,
    invalidReason: reason,
    invalidatedBy: moderator,
    invalidatedTxHash: event.transaction.hash,
  });
});

ponder.on("PodManager:PodOwnerEmissionsClaimed", async ({ event, context }) => {
  const { podId, epoch, owner, subnetId, sender, coreAmount, primaryAmount } = event.args;
  const { db } = context;
  await recordEvent(context, event, "emissions_claimed", jsonArgs({ claim: "owner", account: owner, ...event.args }), {
    datanets: [subnetId],
    pods: [podId],
    wallets: [owner, sender],
  });
  await db
    .insert(claim)
    .values({
      id: claimId("owner", podId, epoch, owner),
      kind: "owner",
      podId,
      epoch,
      account: owner,
      sender,
      subnetId,
      coreAmount,
      primaryAmount,
      txHash: event.transaction.hash,
      logIndex: event.log.logIndex,
      blockNumber: event.block.number,
      timestamp: event.block.timestamp,
    })
    .onConflictDoNothing();
  await db
    .insert(podEpoch)
    .values({ podId, epoch, subnetId, upVotes: 0n, downVotes: 0n, voterCount: 0, ownerClaimed: true })
    .onConflictDoUpdate({ ownerClaimed: true });
  await db.update(pod, { id: podId }).set((p) => ({
    ownerClaimedCore: p.ownerClaimedCore + coreAmount,
    ownerClaimedPrimary: p.ownerClaimedPrimary + primaryAmount,
  }));
});

ponder.on("PodManager:VoterEmissionsClaimed", async ({ event, context }) => {
  const { podId, epoch, voter, subnetId, sender, coreAmount, primaryAmount } = event.args;
  const { db } = context;
  await recordEvent(context, event, "emissions_claimed", jsonArgs({ claim: "voter", account: voter, ...event.args }), {
    datanets: [subnetId],
    pods: [podId],
    wallets: [voter, sender],
  });
  await db
    .insert(claim)
    .values({
      id: claimId("voter", podId, epoch, voter),
      kind: "voter",
      podId,
      epoch,
      account: voter,
      sender,
      subnetId,
      coreAmount,
      primaryAmount,
      txHash: event.transaction.hash,
      logIndex: event.log.logIndex,
      blockNumber: event.block.number,
      timestamp: event.block.timestamp,
    })
    .onConflictDoNothing();
  await db
    .insert(voterPodEpoch)
    .values({ voter, podId, epoch, upVotes: 0n, downVotes: 0n, claimed: true })
    .onConflictDoUpdate({ claimed: true });
  await db.update(pod, { id: podId }).set((p) => ({
    votersClaimedCore: p.votersClaimedCore + coreAmount,
    votersClaimedPrimary: p.votersClaimedPrimary + primaryAmount,
  }));
});
