// SubnetManager: datanets (NFTs), their parameters, pools, access purchases and every fee.
import { ponder } from "ponder:registry";
import {
  boost,
  datanet,
  datanetParameterUpdate,
  emissionSeed,
  feeCollection,
  feeTotal,
  subnetAccess,
  subnetAccessHolder,
} from "ponder:schema";
import { decodeFunctionData, zeroAddress } from "viem";
import { SubnetManagerAbi } from "../abis";
import { feeKindName, subnetParamColumn, subnetParamName } from "./lib/enums";
import { eventId } from "./lib/ids";
import { seedPool } from "./lib/seeds";
import { jsonArgs, recordEvent } from "./events";
import { ensureProtocol, setupProtocol, upsertProtocol } from "./protocol";

ponder.on("SubnetManager:setup", async ({ context }) => {
  await setupProtocol(context, "SubnetManager", BigInt(context.contracts.SubnetManager.startBlock ?? 0));
});

ponder.on("SubnetManager:SubnetPublished", async ({ event, context }) => {
  const { subnetId, owner, primaryToken, creationFee } = event.args;
  await ensureProtocol(context, event.block.number, ["SubnetManager"]);
  await context.db
    .insert(datanet)
    .values({
      id: subnetId,
      owner,
      creator: owner,
      primaryToken,
      creationFee,
      accessFeeCORE: 0n,
      accessFeePrimaryToken: 0n,
      publishingFeeCORE: 0n,
      publishingFeePrimaryToken: 0n,
      republishingFeeCORE: 0n,
      emissionsPerEpochCORE: 0n,
      emissionsPerEpochPrimaryToken: 0n,
      corePool: 0n,
      primaryPool: 0n,
      seededCoreByOwner: 0n,
      seededPrimaryByOwner: 0n,
      boostedCore: 0n,
      emissionsPaidCore: 0n,
      emissionsPaidPrimary: 0n,
      cumulativeUpVotes: 0n,
      cumulativeDownVotes: 0n,
      podCount: 0,
      accessHolderCount: 0,
      publishTxHash: event.transaction.hash,
      createdAt: event.block.timestamp,
      blockNumber: event.block.number,
    })
    .onConflictDoNothing();
  await recordEvent(context, event, "datanet_published", jsonArgs(event.args), { datanets: [subnetId], wallets: [owner] });
});

// Ownership of a datanet NFT (the mint is recorded by SubnetPublished).
ponder.on("SubnetManager:Transfer", async ({ event, context }) => {
  const { from, to, tokenId } = event.args;
  if (from === zeroAddress || to === zeroAddress) return;
  await context.db.update(datanet, { id: tokenId }).set({ owner: to });
});

ponder.on("SubnetManager:SubnetParameterUpdated", async ({ event, context }) => {
  const { subnetId, value, epoch } = event.args;
  const param = subnetParamName(event.args.param);
  await context.db
    .insert(datanetParameterUpdate)
    .values({
      id: eventId(event.transaction.hash, event.log.logIndex),
      subnetId,
      param,
      value,
      epoch,
      txHash: event.transaction.hash,
      logIndex: event.log.logIndex,
      blockNumber: event.block.number,
      timestamp: event.block.timestamp,
    });
  const column = subnetParamColumn(param);
  await context.db.update(datanet, { id: subnetId }).set({ [column]: value });
});

ponder.on("SubnetManager:SubnetAccessGranted", async ({ event, context }) => {
  const { subnetId, account, payer, token, fee } = event.args;
  const { db } = context;
  const timestamp = event.block.timestamp;
  await recordEvent(context, event, "access_granted", jsonArgs(event.args), {
    datanets: [subnetId],
    wallets: [account, payer],
  });
  await db
    .insert(subnetAccess)
    .values({
      id: eventId(event.transaction.hash, event.log.logIndex),
      subnetId,
      account,
      payer,
      token,
      fee,
      txHash: event.transaction.hash,
      logIndex: event.log.logIndex,
      blockNumber: event.block.number,
      timestamp,
    });
  let repeat = false;
  await db
    .insert(subnetAccessHolder)
    .values({
      subnetId,
      account,
      purchaseCount: 1,
      firstGrantedAt: timestamp,
      firstTxHash: event.transaction.hash,
      lastGrantedAt: timestamp,
    })
    .onConflictDoUpdate((holder) => {
      repeat = true;
      return { purchaseCount: holder.purchaseCount + 1, lastGrantedAt: timestamp };
    });
  if (repeat) return;
  await db.update(datanet, { id: subnetId }).set((row) => ({ accessHolderCount: row.accessHolderCount + 1 }));
});

ponder.on("SubnetManager:EmissionPoolSeeded", async ({ event, context }) => {
  const { subnetId, from, token, amount } = event.args;
  const { db } = context;
  const row = await db.find(datanet, { id: subnetId });
  if (!row) throw new Error(`EmissionPoolSeeded for unknown datanet ${subnetId}`);
  const coreToken = context.contracts.CoreToken.address as string;
  let pool = seedPool({ token, coreToken, primaryToken: row.primaryToken, coreSeedJustBefore: false, subnetId, amount });
  if (token.toLowerCase() === coreToken.toLowerCase() && row.primaryToken === coreToken.toLowerCase()) {
    // Ambiguous only for a datanet whose primary token is CORE: look at the transaction.
    const previous =
      event.log.logIndex >= 2
        ? await db.find(emissionSeed, { id: eventId(event.transaction.hash, event.log.logIndex - 2) })
        : null;
    let call: { subnetId: bigint; coreAmount: bigint; primaryAmount: bigint } | undefined;
    try {
      const decoded = decodeFunctionData({ abi: SubnetManagerAbi, data: event.transaction.input });
      if (decoded.functionName === "seedEmissionPool") {
        const [callSubnet, coreAmount, primaryAmount] = decoded.args;
        call = { subnetId: callSubnet, coreAmount, primaryAmount };
      }
    } catch {
      // not a direct call to the SubnetManager
    }
    pool = seedPool({
      token,
      coreToken,
      primaryToken: row.primaryToken,
      coreSeedJustBefore: previous?.subnetId === subnetId && previous.pool === "core",
      call,
      subnetId,
      amount,
    });
  }
  await db
    .insert(emissionSeed)
    .values({
      id: eventId(event.transaction.hash, event.log.logIndex),
      subnetId,
      from,
      token,
      pool,
      amount,
      txHash: event.transaction.hash,
      logIndex: event.log.logIndex,
      blockNumber: event.block.number,
      timestamp: event.block.timestamp,
    });
  await db
    .update(datanet, { id: subnetId })
    .set((d) =>
      pool === "core"
        ? { corePool: d.corePool + amount, seededCoreByOwner: d.seededCoreByOwner + amount }
        : { primaryPool: d.primaryPool + amount, seededPrimaryByOwner: d.seededPrimaryByOwner + amount },
    );
});

ponder.on("SubnetManager:SubnetBoosted", async ({ event, context }) => {
  const { subnetId, staker, amount } = event.args;
  await context.db
    .insert(boost)
    .values({
      id: eventId(event.transaction.hash, event.log.logIndex),
      subnetId,
      staker,
      amount,
      txHash: event.transaction.hash,
      logIndex: event.log.logIndex,
      blockNumber: event.block.number,
      timestamp: event.block.timestamp,
    });
  await context.db
    .update(datanet, { id: subnetId })
    .set((d) => ({ corePool: d.corePool + amount, boostedCore: d.boostedCore + amount }));
});

ponder.on("SubnetManager:EmissionsPaid", async ({ event, context }) => {
  const { subnetId, coreAmount, primaryAmount } = event.args;
  await context.db.update(datanet, { id: subnetId }).set((d) => ({
    corePool: d.corePool - coreAmount,
    primaryPool: d.primaryPool - primaryAmount,
    emissionsPaidCore: d.emissionsPaidCore + coreAmount,
    emissionsPaidPrimary: d.emissionsPaidPrimary + primaryAmount,
  }));
});

// Emitted before SubnetPublished for a creation fee: no datanet row is needed here.
ponder.on("SubnetManager:FeeCollected", async ({ event, context }) => {
  const { subnetId, token, payer, amount, burnt, toPerformancePool, locked } = event.args;
  await context.db
    .insert(feeCollection)
    .values({
      id: eventId(event.transaction.hash, event.log.logIndex),
      subnetId,
      kind: feeKindName(event.args.kind),
      token,
      payer,
      amount,
      burnt,
      toPerformancePool,
      locked,
      txHash: event.transaction.hash,
      logIndex: event.log.logIndex,
      blockNumber: event.block.number,
      timestamp: event.block.timestamp,
    });
  await context.db
    .insert(feeTotal)
    .values({ token, amount, burnt, toPerformancePool, locked, count: 1 })
    .onConflictDoUpdate((row) => ({
      amount: row.amount + amount,
      burnt: row.burnt + burnt,
      toPerformancePool: row.toPerformancePool + toPerformancePool,
      locked: row.locked + locked,
      count: row.count + 1,
    }));
});

ponder.on("SubnetManager:SubnetCreationFeeSet", async ({ event, context }) => {
  await upsertProtocol(context, event.block.number, { subnetCreationFee: event.args.fee });
});

ponder.on("SubnetManager:PerformancePoolSet", async ({ event, context }) => {
  await upsertProtocol(context, event.block.number, { performancePool: event.args.pool });
});
