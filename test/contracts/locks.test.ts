import { beforeAll, describe, expect, it } from "vitest";
import { zeroAddress } from "viem";
import { devnetAccount } from "../../devnet/accounts";
import { useDevnet } from "../support/chain";
import {
  CORE,
  DAY,
  balanceOf,
  blockTimestamp,
  eventOf,
  fundRoles,
  latestTimestamp,
  lockupData,
  mineAt,
  stake,
  who,
} from "./helpers";

const MIN = 7n * DAY;
const MAX = 730n * DAY;
/** VotingPower.points, written out independently of the contract. */
const points = (amount: bigint, duration: bigint) => (amount * duration) / MAX;

describe("VeCore locks and voting power", () => {
  const devnet = useDevnet({ epochLengthSeconds: 3600 });
  const p = () => devnet().protocol;
  const powerOf = (address: `0x${string}`) => p().read<bigint>("VeCore", "votingPowerOf", [address]);

  beforeAll(async () => {
    await fundRoles(p(), ["voter1", "voter2", "voter3", "buyer"]);
  });

  it("stake earns amount × duration / maxDuration points, previewPoints agrees, and lockupData returns (amount, expiresAt, unused = 0, votingPower)", async () => {
    const cases: Array<[bigint, bigint]> = [
      [CORE(1000), 365n * DAY],
      [CORE(1000), MAX],
      [CORE(1000), MIN],
      [1_234_567_891_234_567n, 100n * DAY + 17n], // rounds down
    ];
    for (const [amount, duration] of cases) {
      const [preview] = await p().read<readonly [bigint, bigint]>("VeCore", "previewPoints", [amount, duration]);
      expect(preview).toBe(points(amount, duration));

      const coreBefore = await balanceOf(p(), "CoreToken", p().address("VeCore"));
      const { lockupId, receipt } = await stake(p(), who("voter1"), amount, duration);
      const ts = await blockTimestamp(p(), receipt);
      const staked = eventOf<Record<string, unknown>>(p(), receipt, "VeCore", "Staked");
      expect(staked).toEqual({
        lockupId,
        owner: who("voter1").address,
        amount,
        duration,
        expiresAt: ts + duration,
        votingPower: preview,
      });
      expect(await lockupData(p(), lockupId)).toEqual({ amount, expiresAt: ts + duration, unused: 0n, votingPower: preview });
      expect(await p().read("VeCore", "ownerOf", [lockupId])).toBe(who("voter1").address);
      expect(await balanceOf(p(), "CoreToken", p().address("VeCore"))).toBe(coreBefore + amount);
    }
    expect(points(CORE(1000), 365n * DAY)).toBe(CORE(500));
  });

  it("durations outside [minStakeDuration, maxStakeDuration] revert InvalidDuration and a zero amount reverts ZeroAmount", async () => {
    for (const duration of [0n, MIN - 1n, MAX + 1n]) {
      await expect(p().write(who("voter2"), "VeCore", "stake", [CORE(1), duration])).rejects.toThrow(/InvalidDuration/);
      await expect(p().read("VeCore", "previewPoints", [CORE(1), duration])).rejects.toThrow(/InvalidDuration/);
    }
    await expect(p().write(who("voter2"), "VeCore", "stake", [0n, MIN])).rejects.toThrow(/ZeroAmount/);
    const atMin = await stake(p(), who("voter2"), CORE(730), MIN);
    expect(atMin.votingPower).toBe(CORE(7));
    const atMax = await stake(p(), who("voter2"), CORE(730), MAX);
    expect(atMax.votingPower).toBe(CORE(730));
  });

  it("stakeMore adds amount × remaining / maxDuration to the lock's points and keeps its expiry", async () => {
    const { lockupId, expiresAt, votingPower } = await stake(p(), who("voter3"), CORE(1000), 365n * DAY);
    await p().increaseTime(Number(40n * DAY + 123n));

    const added = CORE(333) + 7n;
    const receipt = await p().write(who("voter3"), "VeCore", "stakeMore", [lockupId, added]);
    const remaining = expiresAt - (await blockTimestamp(p(), receipt));
    const expected = votingPower + points(added, remaining);
    expect(remaining).toBeLessThan(325n * DAY);
    expect(await lockupData(p(), lockupId)).toEqual({ amount: CORE(1333) + 7n, expiresAt, unused: 0n, votingPower: expected });
    expect(eventOf(p(), receipt, "VeCore", "StakeIncreased")).toEqual({
      lockupId,
      owner: who("voter3").address,
      addedAmount: added,
      amount: CORE(1333) + 7n,
      votingPower: expected,
    });
    await expect(p().write(who("voter3"), "VeCore", "stakeMore", [lockupId, 0n])).rejects.toThrow(/ZeroAmount/);
  });

  it("extendLock moves the expiry later and recomputes the points over the whole remaining time", async () => {
    const amount = CORE(900);
    const { lockupId, expiresAt } = await stake(p(), who("voter3"), amount, 30n * DAY);
    await p().increaseTime(Number(10n * DAY));

    const receipt = await p().write(who("voter3"), "VeCore", "extendLock", [lockupId, 100n * DAY]);
    const ts = await blockTimestamp(p(), receipt);
    const newExpiry = expiresAt + 100n * DAY;
    const expected = points(amount, newExpiry - ts);
    expect(await lockupData(p(), lockupId)).toEqual({ amount, expiresAt: newExpiry, unused: 0n, votingPower: expected });
    expect(eventOf(p(), receipt, "VeCore", "LockExtended")).toEqual({
      lockupId,
      owner: who("voter3").address,
      expiresAt: newExpiry,
      votingPower: expected,
    });

    // the remaining time after the extension may not exceed the maximum
    const remainingNow = newExpiry - (await latestTimestamp(p()));
    await expect(
      p().write(who("voter3"), "VeCore", "extendLock", [lockupId, MAX - remainingNow + 10n]),
    ).rejects.toThrow(/InvalidDuration/);
    await expect(p().write(who("voter3"), "VeCore", "extendLock", [lockupId, 0n])).rejects.toThrow(/InvalidDuration/);
  });

  it("extendLock on an expired lock counts the new duration from now and revives its voting power", async () => {
    const amount = CORE(200);
    const before = await powerOf(who("buyer").address);
    const { lockupId, expiresAt } = await stake(p(), who("buyer"), amount, MIN);
    await mineAt(p(), expiresAt + 5n * DAY);
    expect(await powerOf(who("buyer").address)).toBe(before);

    // stakeMore needs a live lock; a too short extension from now is rejected
    await expect(p().write(who("buyer"), "VeCore", "stakeMore", [lockupId, CORE(1)])).rejects.toThrow(/LockExpired/);
    await expect(p().write(who("buyer"), "VeCore", "extendLock", [lockupId, MIN - 1n])).rejects.toThrow(
      /InvalidDuration/,
    );

    const receipt = await p().write(who("buyer"), "VeCore", "extendLock", [lockupId, 60n * DAY]);
    const ts = await blockTimestamp(p(), receipt);
    expect(await lockupData(p(), lockupId)).toEqual({
      amount,
      expiresAt: ts + 60n * DAY,
      unused: 0n,
      votingPower: points(amount, 60n * DAY),
    });
    expect(await powerOf(who("buyer").address)).toBe(before + points(amount, 60n * DAY));
  });

  it("only the lock owner may stakeMore, extendLock or withdraw (NotLockOwner)", async () => {
    const { lockupId } = await stake(p(), who("voter1"), CORE(10), MIN);
    const stranger = who("voter2");
    await expect(p().write(stranger, "VeCore", "stakeMore", [lockupId, CORE(1)])).rejects.toThrow(/NotLockOwner/);
    await expect(p().write(stranger, "VeCore", "extendLock", [lockupId, MIN])).rejects.toThrow(/NotLockOwner/);
    await expect(p().write(stranger, "VeCore", "withdraw", [lockupId, stranger.address])).rejects.toThrow(
      /NotLockOwner/,
    );
    // an id that was never minted has no owner either
    const unknown = (await p().read<bigint>("VeCore", "nextLockupId")) + 5n;
    await expect(p().write(stranger, "VeCore", "withdraw", [unknown, stranger.address])).rejects.toThrow(
      /NotLockOwner/,
    );
  });

  it("withdraw before expiry reverts LockNotExpired; at expiry it pays the amount to `to`, burns the lock and zeroes lockupData", async () => {
    const amount = CORE(77) + 3n;
    const owner = who("voter2");
    const recipient = devnetAccount(15).address;
    const { lockupId, expiresAt } = await stake(p(), owner, amount, MIN);

    await mineAt(p(), expiresAt - 1n);
    await expect(p().write(owner, "VeCore", "withdraw", [lockupId, recipient])).rejects.toThrow(/LockNotExpired/);

    await mineAt(p(), expiresAt);
    const ownerCore = await balanceOf(p(), "CoreToken", owner.address);
    const vaultCore = await balanceOf(p(), "CoreToken", p().address("VeCore"));
    const nfts = await p().read<bigint>("VeCore", "balanceOf", [owner.address]);
    const receipt = await p().write(owner, "VeCore", "withdraw", [lockupId, recipient]);

    expect(eventOf(p(), receipt, "VeCore", "Withdrawn")).toEqual({ lockupId, owner: owner.address, to: recipient, amount });
    expect(eventOf(p(), receipt, "VeCore", "Transfer")).toEqual({ from: owner.address, to: zeroAddress, tokenId: lockupId });
    expect(await balanceOf(p(), "CoreToken", recipient)).toBe(amount);
    expect(await balanceOf(p(), "CoreToken", owner.address)).toBe(ownerCore);
    expect(await balanceOf(p(), "CoreToken", p().address("VeCore"))).toBe(vaultCore - amount);
    expect(await p().read<bigint>("VeCore", "balanceOf", [owner.address])).toBe(nfts - 1n);
    await expect(p().read("VeCore", "ownerOf", [lockupId])).rejects.toThrow(/ERC721NonexistentToken/);
    expect(await lockupData(p(), lockupId)).toEqual({ amount: 0n, expiresAt: 0n, unused: 0n, votingPower: 0n });
    // a burnt lock cannot be withdrawn twice
    await expect(p().write(owner, "VeCore", "withdraw", [lockupId, recipient])).rejects.toThrow(/NotLockOwner/);
  });

  it("votingPowerOf sums only the unexpired locks: a lock stops counting at its expiresAt second", async () => {
    const holder = devnetAccount(16);
    await p().testClient.setBalance({ address: holder.address, value: 10n ** 20n });
    await p().write(who("deployer"), "CoreToken", "mint", [holder.address, CORE(10_000)]);
    await p().write(holder, "CoreToken", "approve", [p().address("VeCore"), CORE(10_000)]);
    expect(await powerOf(holder.address)).toBe(0n);

    const short = await stake(p(), holder, CORE(730), 10n * DAY);
    const long = await stake(p(), holder, CORE(1460), 20n * DAY);
    expect(await powerOf(holder.address)).toBe(CORE(10) + CORE(40));

    await mineAt(p(), short.expiresAt - 1n);
    expect(await powerOf(holder.address)).toBe(CORE(50));
    await mineAt(p(), short.expiresAt);
    expect(await powerOf(holder.address)).toBe(CORE(40));
    await mineAt(p(), long.expiresAt);
    expect(await powerOf(holder.address)).toBe(0n);
    // expired locks keep their data until withdrawn
    expect((await lockupData(p(), long.lockupId)).votingPower).toBe(CORE(40));
  });

  it("votingPowerOf follows an ERC-721 transfer of a lock, and only the new holder may manage it", async () => {
    const from = who("voter1");
    const to = who("voter3");
    const { lockupId, votingPower } = await stake(p(), from, CORE(500), 200n * DAY);
    const fromBefore = await powerOf(from.address);
    const toBefore = await powerOf(to.address);

    await p().write(from, "VeCore", "transferFrom", [from.address, to.address, lockupId]);
    expect(await p().read("VeCore", "ownerOf", [lockupId])).toBe(to.address);
    expect(await powerOf(from.address)).toBe(fromBefore - votingPower);
    expect(await powerOf(to.address)).toBe(toBefore + votingPower);

    await expect(p().write(from, "VeCore", "stakeMore", [lockupId, CORE(1)])).rejects.toThrow(/NotLockOwner/);
    await expect(p().write(from, "VeCore", "extendLock", [lockupId, MIN])).rejects.toThrow(/NotLockOwner/);
    const receipt = await p().write(to, "VeCore", "stakeMore", [lockupId, CORE(1)]);
    expect(eventOf<{ owner: string }>(p(), receipt, "VeCore", "StakeIncreased").owner).toBe(to.address);
  });

  it("lockupData of an unknown lock is all zeros", async () => {
    const unknown = (await p().read<bigint>("VeCore", "nextLockupId")) + 100n;
    expect(await lockupData(p(), unknown)).toEqual({ amount: 0n, expiresAt: 0n, unused: 0n, votingPower: 0n });
  });

  it("setGovernanceAccount is owner-only, emits GovernanceAccountSet and drives isGovernanceAccount (the treasury is set at deploy)", async () => {
    const isGov = (address: `0x${string}`) => p().read<boolean>("VeCore", "isGovernanceAccount", [address]);
    expect(await isGov(who("treasury").address)).toBe(true);
    expect(devnet().deployment.parameters.governanceAccounts).toEqual([who("treasury").address]);
    expect(await isGov(who("voter1").address)).toBe(false);

    const on = await p().write(who("deployer"), "VeCore", "setGovernanceAccount", [who("voter1").address, true]);
    expect(eventOf(p(), on, "VeCore", "GovernanceAccountSet")).toEqual({
      account: who("voter1").address,
      isGovernance: true,
    });
    expect(await isGov(who("voter1").address)).toBe(true);

    const off = await p().write(who("deployer"), "VeCore", "setGovernanceAccount", [who("voter1").address, false]);
    expect(eventOf(p(), off, "VeCore", "GovernanceAccountSet")).toEqual({
      account: who("voter1").address,
      isGovernance: false,
    });
    expect(await isGov(who("voter1").address)).toBe(false);

    await expect(
      p().write(who("voter1"), "VeCore", "setGovernanceAccount", [who("voter1").address, true]),
    ).rejects.toThrow(/OwnableUnauthorizedAccount/);
  });
});
