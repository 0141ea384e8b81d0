// VeCore: lock positions (veCORE NFTs), governance accounts, the epoch clock parameters.
import { ponder } from "ponder:registry";
import { governanceAccount, lock } from "ponder:schema";
import { zeroAddress } from "viem";
import { jsonArgs, recordEvent } from "./events";
import { ensureProtocol, setupProtocol } from "./protocol";

ponder.on("VeCore:setup", async ({ context }) => {
  await setupProtocol(context, "VeCore", BigInt(context.contracts.VeCore.startBlock ?? 0));
});

ponder.on("VeCore:Staked", async ({ event, context }) => {
  const { lockupId, owner, amount, expiresAt, votingPower } = event.args;
  await ensureProtocol(context, event.block.number, ["VeCore"]);
  await context.db
    .insert(lock)
    .values({
      id: lockupId,
      owner,
      amount,
      expiresAt,
      votingPower,
      withdrawn: false,
      txHash: event.transaction.hash,
      createdAt: event.block.timestamp,
      updatedAt: event.block.timestamp,
    })
    .onConflictDoNothing();
  await recordEvent(context, event, "lock_created", jsonArgs(event.args), { wallets: [owner] });
});

ponder.on("VeCore:StakeIncreased", async ({ event, context }) => {
  const { lockupId, amount, votingPower } = event.args;
  await context.db.update(lock, { id: lockupId }).set({ amount, votingPower, updatedAt: event.block.timestamp });
  await recordEvent(context, event, "lock_increased", jsonArgs(event.args), { wallets: [event.args.owner] });
});

ponder.on("VeCore:LockExtended", async ({ event, context }) => {
  const { lockupId, expiresAt, votingPower } = event.args;
  await context.db.update(lock, { id: lockupId }).set({ expiresAt, votingPower, updatedAt: event.block.timestamp });
  await recordEvent(context, event, "lock_extended", jsonArgs(event.args), { wallets: [event.args.owner] });
});

ponder.on("VeCore:Withdrawn", async ({ event, context }) => {
  const { lockupId, to, amount } = event.args;
  await context.db
    .update(lock, { id: lockupId })
    .set({ withdrawn: true, withdrawnTo: to, amount, updatedAt: event.block.timestamp });
  await recordEvent(context, event, "lock_withdrawn", jsonArgs(event.args), { wallets: [event.args.owner, to] });
});

// Ownership of a lock NFT. Mints are recorded by Staked (emitted after the mint's Transfer);
// the burn in withdraw() keeps the last owner on the row.
ponder.on("VeCore:Transfer", async ({ event, context }) => {
  const { from, to, tokenId } = event.args;
  if (from === zeroAddress || to === zeroAddress) return;
  await context.db.update(lock, { id: tokenId }).set({ owner: to, updatedAt: event.block.timestamp });
});

ponder.on("VeCore:GovernanceAccountSet", async ({ event, context }) => {
  const { account, isGovernance } = event.args;
  await context.db
    .insert(governanceAccount)
    .values({ address: account, isGovernance, updatedAt: event.block.timestamp })
    .onConflictDoUpdate({ isGovernance, updatedAt: event.block.timestamp });
});
