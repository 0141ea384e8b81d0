/**
 * Small helpers shared by the contract tests (not a test file itself).
 * Every helper goes through `Protocol.write`, which simulates first, so a revert surfaces
 * with its decoded custom error.
 */
import {
  BaseError,
  ContractFunctionRevertedError,
  maxUint256,
  parseEther,
  parseEventLogs,
  type Abi,
  type Account,
  type TransactionReceipt,
} from "viem";
import { roleAccount, type Role } from "../../devnet/accounts";
import type { Protocol } from "../../devnet/protocol";
import type { ContractName } from "../../chain/deployments";

export const DAY = 86_400n;
export const BURN_ADDRESS = "0x000000000000000000000000000000000000dEaD" as const;
export const CORE = (n: number | string) => parseEther(String(n));

/** FeeSplit.FeeKind */
export const FeeKind = { Creation: 0, Access: 1, Publishing: 2, Republishing: 3 } as const;

/** FeeSplit.split, written out independently of the contract. */
export function expectedSplit(kind: number, amount: bigint) {
  const [poolBps, burnBps] = kind === FeeKind.Creation ? [5_000n, 2_500n] : [1_000n, 4_500n];
  const toPerformancePool = (amount * poolBps) / 10_000n;
  const burnt = (amount * burnBps) / 10_000n;
  return { burnt, toPerformancePool, locked: amount - toPerformancePool - burnt };
}

export const who = (role: Role) => roleAccount(role);

/** Mints CORE and DATA to each role and approves the three protocol contracts for both tokens. */
export async function fundRoles(p: Protocol, roles: Role[], amount = CORE(1_000_000)) {
  const admin = roleAccount("deployer");
  const spenders = [p.address("SubnetManager"), p.address("PodManager"), p.address("VeCore")];
  for (const role of roles) {
    const account = roleAccount(role);
    await p.write(admin, "CoreToken", "mint", [account.address, amount]);
    await p.write(admin, "DemoToken", "mint", [account.address, amount]);
    for (const spender of spenders) {
      await p.write(account, "CoreToken", "approve", [spender, maxUint256]);
      await p.write(account, "DemoToken", "approve", [spender, maxUint256]);
    }
  }
}

/** Decoded events of one contract in a receipt (logs of other addresses are ignored). */
export function eventsOf<T = Record<string, unknown>>(
  p: Protocol,
  receipt: TransactionReceipt,
  contract: ContractName,
  eventName: string,
): T[] {
  const address = p.address(contract).toLowerCase();
  const logs = receipt.logs.filter((log) => log.address.toLowerCase() === address);
  return parseEventLogs({ abi: p.abis[contract] as Abi, logs, eventName, strict: true }).map(
    (log) => (log as unknown as { args: T }).args,
  );
}

/** The one event of that name the contract emitted in the receipt. */
export function eventOf<T = Record<string, unknown>>(
  p: Protocol,
  receipt: TransactionReceipt,
  contract: ContractName,
  eventName: string,
): T {
  const events = eventsOf<T>(p, receipt, contract, eventName);
  if (events.length !== 1) throw new Error(`expected one ${contract}.${eventName}, got ${events.length}`);
  return events[0]!;
}

export async function blockTimestamp(p: Protocol, receipt: TransactionReceipt): Promise<bigint> {
  return (await p.publicClient.getBlock({ blockNumber: receipt.blockNumber })).timestamp;
}

export async function latestTimestamp(p: Protocol): Promise<bigint> {
  return (await p.publicClient.getBlock()).timestamp;
}

/** Mines one block at exactly `timestamp`. */
export async function mineAt(p: Protocol, timestamp: bigint) {
  await p.testClient.setNextBlockTimestamp({ timestamp });
  await p.testClient.mine({ blocks: 1 });
}

export async function balanceOf(p: Protocol, token: "CoreToken" | "DemoToken", account: `0x${string}`) {
  return p.read<bigint>(token, "balanceOf", [account]);
}

export async function publishSubnet(p: Protocol, owner: Account): Promise<bigint> {
  const receipt = await p.write(owner, "SubnetManager", "publishSubnet", [p.address("DemoToken")]);
  return eventOf<{ subnetId: bigint }>(p, receipt, "SubnetManager", "SubnetPublished").subnetId;
}

export async function mintPod(
  p: Protocol,
  payer: Account,
  owner: Account,
  subnetId: bigint,
  token: "CORE" | "PrimaryToken" = "CORE",
): Promise<bigint> {
  const receipt = await p.write(payer, "PodManager", `mintPodWith${token}`, [owner.address, subnetId]);
  return eventOf<{ podId: bigint }>(p, receipt, "PodManager", "PodMinted").podId;
}

export async function stake(p: Protocol, owner: Account, amount: bigint, duration: bigint) {
  const receipt = await p.write(owner, "VeCore", "stake", [amount, duration]);
  const staked = eventOf<{ lockupId: bigint; expiresAt: bigint; votingPower: bigint }>(p, receipt, "VeCore", "Staked");
  return { ...staked, receipt };
}

/** VeCore.lockupData: (amount, expiresAt, unused, votingPower), the live layout; `unused` is always 0. */
export async function lockupData(p: Protocol, lockupId: bigint) {
  const [amount, expiresAt, unused, votingPower] = await p.read<readonly [bigint, bigint, bigint, bigint]>(
    "VeCore",
    "lockupData",
    [lockupId],
  );
  return { amount, expiresAt, unused, votingPower };
}

export async function pair(p: Protocol, contract: ContractName, fn: string, args: readonly unknown[]) {
  const [a, b] = await p.read<readonly [bigint, bigint]>(contract, fn, args);
  return [a, b] as const;
}

/** The decoded custom error a write or read reverted with (fails the test when it did not revert). */
export async function revertOf(promise: Promise<unknown>): Promise<{ errorName: string; args: readonly unknown[] }> {
  try {
    await promise;
  } catch (error) {
    const reverted =
      error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : undefined;
    if (reverted instanceof ContractFunctionRevertedError && reverted.data) {
      return { errorName: reverted.data.errorName, args: reverted.data.args ?? [] };
    }
    throw error;
  }
  throw new Error("expected a revert");
}
