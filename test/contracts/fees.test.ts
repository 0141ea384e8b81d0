import { beforeAll, describe, expect, it } from "vitest";
import { erc20Abi, parseEventLogs, type Account, type TransactionReceipt } from "viem";
import { useDevnet } from "../support/chain";
import {
  BURN_ADDRESS,
  CORE,
  FeeKind,
  balanceOf,
  eventOf,
  eventsOf,
  expectedSplit,
  fundRoles,
  mintPod,
  pair,
  publishSubnet,
  who,
} from "./helpers";

type Token = "CoreToken" | "DemoToken";

describe("SubnetManager fees, pools and ownership", () => {
  const devnet = useDevnet({ epochLengthSeconds: 3600 });
  const p = () => devnet().protocol;
  const performancePool = who("performancePool").address;
  let research: bigint; // curatorA's datanet
  let datasets: bigint; // curatorB's datanet

  /** Balances a fee touches: burn address, performance pool, SubnetManager, payer, lockedFees. */
  const feeState = async (token: Token, payer: `0x${string}`) => ({
    burn: await balanceOf(p(), token, BURN_ADDRESS),
    pool: await balanceOf(p(), token, performancePool),
    manager: await balanceOf(p(), token, p().address("SubnetManager")),
    payer: await balanceOf(p(), token, payer),
    locked: await p().read<bigint>("SubnetManager", "lockedFees", [p().address(token)]),
  });

  /** Runs `action` and checks its one FeeCollected event and every balance against FeeSplit. */
  async function expectFee(
    fee: { subnetId: bigint; kind: number; token: Token; payer: Account; amount: bigint },
    action: () => Promise<TransactionReceipt>,
  ): Promise<TransactionReceipt> {
    const before = await feeState(fee.token, fee.payer.address);
    const receipt = await action();
    const split = expectedSplit(fee.kind, fee.amount);
    expect(split.burnt + split.toPerformancePool + split.locked).toBe(fee.amount);
    expect(eventOf(p(), receipt, "SubnetManager", "FeeCollected")).toEqual({
      subnetId: fee.subnetId,
      kind: fee.kind,
      token: p().address(fee.token),
      payer: fee.payer.address,
      amount: fee.amount,
      ...split,
    });
    expect(await feeState(fee.token, fee.payer.address)).toEqual({
      burn: before.burn + split.burnt,
      pool: before.pool + split.toPerformancePool,
      manager: before.manager + split.locked,
      payer: before.payer - fee.amount,
      locked: before.locked + split.locked,
    });
    return receipt;
  }

  beforeAll(async () => {
    await fundRoles(p(), ["curatorA", "curatorB", "voter1", "voter2", "voter3", "buyer", "serverWallet"]);
    research = await publishSubnet(p(), who("curatorA"));
    datasets = await publishSubnet(p(), who("curatorB"));
  });

  it("the creation fee splits 50% performance pool / 25% burnt / 25% locked, and locked takes the rounding remainder", async () => {
    const id = await p().read<bigint>("SubnetManager", "nextSubnetId");
    const receipt = await expectFee(
      { subnetId: id, kind: FeeKind.Creation, token: "CoreToken", payer: who("voter1"), amount: CORE(100) },
      () => p().write(who("voter1"), "SubnetManager", "publishSubnet", [p().address("DemoToken")]),
    );
    expect(expectedSplit(FeeKind.Creation, CORE(100))).toEqual({
      toPerformancePool: CORE(50),
      burnt: CORE(25),
      locked: CORE(25),
    });
    expect(eventOf(p(), receipt, "SubnetManager", "SubnetPublished")).toEqual({
      subnetId: id,
      owner: who("voter1").address,
      primaryToken: p().address("DemoToken"),
      creationFee: CORE(100),
    });

    // an amount that does not divide evenly; only the admin may change the fee
    const odd = CORE(100) + 3n;
    await expect(p().write(who("voter1"), "SubnetManager", "setSubnetCreationFee", [odd])).rejects.toThrow(
      /AccessControlUnauthorizedAccount/,
    );
    const set = await p().write(who("deployer"), "SubnetManager", "setSubnetCreationFee", [odd]);
    expect(eventOf(p(), set, "SubnetManager", "SubnetCreationFeeSet")).toEqual({ fee: odd });
    expect(expectedSplit(FeeKind.Creation, odd)).toEqual({
      toPerformancePool: CORE(50) + 1n,
      burnt: CORE(25),
      locked: CORE(25) + 2n,
    });
    await expectFee(
      { subnetId: id + 1n, kind: FeeKind.Creation, token: "CoreToken", payer: who("voter2"), amount: odd },
      () => p().write(who("voter2"), "SubnetManager", "publishSubnet", [p().address("DemoToken")]),
    );
    await p().write(who("deployer"), "SubnetManager", "setSubnetCreationFee", [CORE(100)]);
  });

  it("access fees in CORE and in the primary token split 10% performance pool / 45% burnt / 45% locked", async () => {
    const feeCore = CORE(10) + 7n;
    const feePrimary = CORE(20) + 9n;
    await p().write(who("curatorA"), "SubnetManager", "setAccessFeeCORE", [research, feeCore]);
    await p().write(who("curatorA"), "SubnetManager", "setAccessFeePrimaryToken", [research, feePrimary]);
    expect(expectedSplit(FeeKind.Access, feeCore)).toEqual({
      toPerformancePool: CORE(1),
      burnt: CORE(4.5) + 3n,
      locked: CORE(4.5) + 4n,
    });

    expect(await p().read("SubnetManager", "hasSubnetAccess", [research, who("voter1").address])).toBe(false);
    const withCore = await expectFee(
      { subnetId: research, kind: FeeKind.Access, token: "CoreToken", payer: who("voter1"), amount: feeCore },
      () => p().write(who("voter1"), "SubnetManager", "accessSubnetWithCOREFee", [research, who("voter1").address]),
    );
    expect(eventOf(p(), withCore, "SubnetManager", "SubnetAccessGranted")).toEqual({
      subnetId: research,
      account: who("voter1").address,
      payer: who("voter1").address,
      token: p().address("CoreToken"),
      fee: feeCore,
    });
    expect(await p().read("SubnetManager", "hasSubnetAccess", [research, who("voter1").address])).toBe(true);

    const withPrimary = await expectFee(
      { subnetId: research, kind: FeeKind.Access, token: "DemoToken", payer: who("voter2"), amount: feePrimary },
      () =>
        p().write(who("voter2"), "SubnetManager", "accessSubnetWithPrimaryTokenFee", [research, who("voter2").address]),
    );
    expect(eventOf(p(), withPrimary, "SubnetManager", "SubnetAccessGranted")).toMatchObject({
      token: p().address("DemoToken"),
      fee: feePrimary,
    });
    expect(await p().read("SubnetManager", "hasSubnetAccess", [research, who("voter2").address])).toBe(true);
  });

  it("an access fee paid by someone else grants the buyer access and its receipt holds exactly one ERC-20 Transfer of the full fee from the payer to the SubnetManager", async () => {
    const fee = CORE(15);
    await p().write(who("curatorB"), "SubnetManager", "setAccessFeeCORE", [datasets, fee]);
    const payer = who("serverWallet");
    const buyer = who("buyer");
    const buyerBefore = await balanceOf(p(), "CoreToken", buyer.address);

    const receipt = await expectFee(
      { subnetId: datasets, kind: FeeKind.Access, token: "CoreToken", payer, amount: fee },
      () => p().write(payer, "SubnetManager", "accessSubnetWithCOREFee", [datasets, buyer.address]),
    );
    expect(await p().read("SubnetManager", "hasSubnetAccess", [datasets, buyer.address])).toBe(true);
    expect(await p().read("SubnetManager", "hasSubnetAccess", [datasets, payer.address])).toBe(false);
    expect(await balanceOf(p(), "CoreToken", buyer.address)).toBe(buyerBefore);
    expect(eventOf(p(), receipt, "SubnetManager", "SubnetAccessGranted")).toMatchObject({
      account: buyer.address,
      payer: payer.address,
      fee,
    });

    // what a subscription package's paymentDetails describe: one transfer, payer -> SubnetManager, full fee
    const transfers = parseEventLogs({ abi: erc20Abi, logs: receipt.logs, eventName: "Transfer" });
    const fromPayer = transfers.filter((t) => t.args.from === payer.address);
    expect(fromPayer).toHaveLength(1);
    expect(fromPayer[0]!.address.toLowerCase()).toBe(p().address("CoreToken").toLowerCase());
    expect(fromPayer[0]!.args).toEqual({ from: payer.address, to: p().address("SubnetManager"), value: fee });
    const ofFullFee = transfers.filter((t) => t.args.value === fee);
    expect(ofFullFee).toHaveLength(1);
    // the rest of the receipt is the split leaving the SubnetManager; nothing reaches the buyer
    expect(
      transfers
        .filter((t) => t !== fromPayer[0])
        .map((t) => [t.args.from, t.args.to])
        .sort(),
    ).toEqual(
      [
        [p().address("SubnetManager"), BURN_ADDRESS],
        [p().address("SubnetManager"), performancePool],
      ].sort(),
    );
  });

  it("a zero fee grants access without moving tokens or emitting FeeCollected", async () => {
    const fresh = await publishSubnet(p(), who("curatorB"));
    const receipt = await p().write(who("voter3"), "SubnetManager", "accessSubnetWithCOREFee", [
      fresh,
      who("voter3").address,
    ]);
    expect(eventsOf(p(), receipt, "SubnetManager", "FeeCollected")).toHaveLength(0);
    expect(parseEventLogs({ abi: erc20Abi, logs: receipt.logs, eventName: "Transfer" })).toHaveLength(0);
    expect(eventOf(p(), receipt, "SubnetManager", "SubnetAccessGranted")).toMatchObject({ fee: 0n });
    expect(await p().read("SubnetManager", "hasSubnetAccess", [fresh, who("voter3").address])).toBe(true);
  });

  it("publishing fees paid with CORE and with the primary token split 10/45/45 and are charged to the sender", async () => {
    const feeCore = CORE(5) + 1n;
    const feePrimary = CORE(8) + 11n;
    await p().write(who("curatorA"), "SubnetManager", "setPublishingFeeCORE", [research, feeCore]);
    await p().write(who("curatorA"), "SubnetManager", "setPublishingFeePrimaryToken", [research, feePrimary]);
    const payer = who("serverWallet");

    const withCore = await expectFee(
      { subnetId: research, kind: FeeKind.Publishing, token: "CoreToken", payer, amount: feeCore },
      () => p().write(payer, "PodManager", "mintPodWithCORE", [who("voter3").address, research]),
    );
    expect(eventOf(p(), withCore, "PodManager", "PodMinted")).toMatchObject({
      owner: who("voter3").address,
      subnetId: research,
      payer: payer.address,
      paymentToken: p().address("CoreToken"),
      fee: feeCore,
    });

    const withPrimary = await expectFee(
      { subnetId: research, kind: FeeKind.Publishing, token: "DemoToken", payer, amount: feePrimary },
      () => p().write(payer, "PodManager", "mintPodWithPrimaryToken", [who("voter3").address, research]),
    );
    expect(eventOf(p(), withPrimary, "PodManager", "PodMinted")).toMatchObject({
      paymentToken: p().address("DemoToken"),
      fee: feePrimary,
    });
  });

  it("a republishing fee is the target datanet's, in CORE, split 10/45/45", async () => {
    const fee = CORE(2) + 5n;
    await p().write(who("curatorB"), "SubnetManager", "setRepublishingFeeCORE", [datasets, fee]);
    await p().write(who("curatorA"), "SubnetManager", "setRepublishingFeeCORE", [research, CORE(99)]);
    const podId = await mintPod(p(), who("voter2"), who("voter2"), research);

    const receipt = await expectFee(
      { subnetId: datasets, kind: FeeKind.Republishing, token: "CoreToken", payer: who("voter2"), amount: fee },
      () => p().write(who("voter2"), "PodManager", "republishPod", [podId, datasets]),
    );
    expect(eventOf(p(), receipt, "PodManager", "PodRepublished")).toMatchObject({
      podId,
      subnetId: datasets,
      previousSubnetId: research,
      fee,
    });
  });

  it("only the datanet owner may set its parameters or seed its pools (NotSubnetOwner), and each change is recorded with its epoch", async () => {
    const setters = [
      "setAccessFeeCORE",
      "setAccessFeePrimaryToken",
      "setPublishingFeeCORE",
      "setPublishingFeePrimaryToken",
      "setRepublishingFeeCORE",
      "setEmissionsPerEpochCORE",
      "setEmissionsPerEpochPrimaryToken",
    ];
    for (const setter of setters) {
      await expect(p().write(who("curatorB"), "SubnetManager", setter, [research, 1n])).rejects.toThrow(
        /NotSubnetOwner/,
      );
    }
    await expect(
      p().write(who("curatorB"), "SubnetManager", "seedEmissionPool", [research, CORE(1), 0n]),
    ).rejects.toThrow(/NotSubnetOwner/);
    // the admin is no datanet owner either
    await expect(
      p().write(who("deployer"), "SubnetManager", "setAccessFeeCORE", [research, 1n]),
    ).rejects.toThrow(/NotSubnetOwner/);

    const epoch = BigInt(await p().currentEpoch());
    for (const [param, setter] of setters.entries()) {
      const value = BigInt(param + 1) * 1_000n;
      const receipt = await p().write(who("curatorA"), "SubnetManager", setter, [research, value]);
      expect(eventOf(p(), receipt, "SubnetManager", "SubnetParameterUpdated")).toEqual({
        subnetId: research,
        param,
        value,
        epoch,
      });
    }
    expect(await p().read("SubnetManager", "getSubnet", [research])).toMatchObject({
      primaryToken: p().address("DemoToken"),
      accessFeeCORE: 1_000n,
      accessFeePrimaryToken: 2_000n,
      publishingFeeCORE: 3_000n,
      publishingFeePrimaryToken: 4_000n,
      republishingFeeCORE: 5_000n,
    });
    expect(await pair(p(), "SubnetManager", "emissionsPerEpochAt", [research, epoch])).toEqual([6_000n, 7_000n]);

    // ownership follows the datanet NFT
    await p().write(who("curatorA"), "SubnetManager", "transferFrom", [
      who("curatorA").address,
      who("voter1").address,
      research,
    ]);
    await expect(
      p().write(who("curatorA"), "SubnetManager", "setAccessFeeCORE", [research, 1n]),
    ).rejects.toThrow(/NotSubnetOwner/);
    await p().write(who("voter1"), "SubnetManager", "setAccessFeeCORE", [research, 1n]);
    await p().write(who("voter1"), "SubnetManager", "transferFrom", [
      who("voter1").address,
      who("curatorA").address,
      research,
    ]);
  });

  it("seedEmissionPool moves the owner's tokens into the pools and emits EmissionPoolSeeded per token", async () => {
    const before = await pair(p(), "SubnetManager", "emissionPool", [datasets]);
    const receipt = await p().write(who("curatorB"), "SubnetManager", "seedEmissionPool", [
      datasets,
      CORE(300),
      CORE(40),
    ]);
    expect(eventsOf(p(), receipt, "SubnetManager", "EmissionPoolSeeded")).toEqual([
      { subnetId: datasets, from: who("curatorB").address, token: p().address("CoreToken"), amount: CORE(300) },
      { subnetId: datasets, from: who("curatorB").address, token: p().address("DemoToken"), amount: CORE(40) },
    ]);
    expect(await pair(p(), "SubnetManager", "emissionPool", [datasets])).toEqual([
      before[0] + CORE(300),
      before[1] + CORE(40),
    ]);
    expect(eventsOf(p(), receipt, "SubnetManager", "FeeCollected")).toHaveLength(0);
    await expect(
      p().write(who("curatorB"), "SubnetManager", "seedEmissionPool", [datasets, 0n, 0n]),
    ).rejects.toThrow(/ZeroAmount/);
  });

  it("boost adds CORE from anyone to the datanet's pool and emits SubnetBoosted; a zero boost reverts ZeroAmount", async () => {
    const [corePool, primaryPool] = await pair(p(), "SubnetManager", "emissionPool", [research]);
    const staker = who("buyer");
    const stakerBefore = await balanceOf(p(), "CoreToken", staker.address);
    const managerBefore = await balanceOf(p(), "CoreToken", p().address("SubnetManager"));
    const locked = await p().read<bigint>("SubnetManager", "lockedFees", [p().address("CoreToken")]);

    const receipt = await p().write(staker, "SubnetManager", "boost", [research, CORE(250)]);
    expect(eventOf(p(), receipt, "SubnetManager", "SubnetBoosted")).toEqual({
      subnetId: research,
      staker: staker.address,
      amount: CORE(250),
    });
    expect(await pair(p(), "SubnetManager", "emissionPool", [research])).toEqual([corePool + CORE(250), primaryPool]);
    expect(await balanceOf(p(), "CoreToken", staker.address)).toBe(stakerBefore - CORE(250));
    expect(await balanceOf(p(), "CoreToken", p().address("SubnetManager"))).toBe(managerBefore + CORE(250));
    expect(await p().read("SubnetManager", "lockedFees", [p().address("CoreToken")])).toBe(locked);
    expect(await p().read("VeCore", "votingPowerOf", [staker.address])).toBe(0n);
    await expect(p().write(staker, "SubnetManager", "boost", [research, 0n])).rejects.toThrow(/ZeroAmount/);
  });

  it("an unknown datanet reverts UnknownSubnet for parameters, pools, boosts, access, views and pod minting", async () => {
    const unknown = (await p().read<bigint>("SubnetManager", "nextSubnetId")) + 10n;
    const anyone = who("voter1");
    const writes: Array<["SubnetManager" | "PodManager", string, unknown[]]> = [
      ["SubnetManager", "setAccessFeeCORE", [unknown, 1n]],
      ["SubnetManager", "setEmissionsPerEpochCORE", [unknown, 1n]],
      ["SubnetManager", "seedEmissionPool", [unknown, CORE(1), 0n]],
      ["SubnetManager", "boost", [unknown, CORE(1)]],
      ["SubnetManager", "accessSubnetWithCOREFee", [unknown, anyone.address]],
      ["SubnetManager", "accessSubnetWithPrimaryTokenFee", [unknown, anyone.address]],
      ["PodManager", "mintPodWithCORE", [anyone.address, unknown]],
      ["PodManager", "mintPodWithPrimaryToken", [anyone.address, unknown]],
    ];
    for (const [contract, fn, args] of writes) {
      await expect(p().write(anyone, contract, fn, args)).rejects.toThrow(/UnknownSubnet/);
    }
    const podId = await mintPod(p(), anyone, anyone, datasets);
    await expect(p().write(anyone, "PodManager", "republishPod", [podId, unknown])).rejects.toThrow(/UnknownSubnet/);
    await expect(p().read("SubnetManager", "getSubnet", [unknown])).rejects.toThrow(/UnknownSubnet/);
    expect(await p().read("SubnetManager", "validSubnet", [unknown])).toBe(false);
    expect(await p().read("SubnetManager", "validSubnet", [0n])).toBe(false);
  });

  it("the SubnetManager holds exactly its locked fees plus its emission pools, per token", async () => {
    const count = await p().read<bigint>("SubnetManager", "nextSubnetId");
    for (const token of ["CoreToken", "DemoToken"] as const) {
      let pools = 0n;
      for (let id = 1n; id < count; id++) {
        const [core, primary] = await pair(p(), "SubnetManager", "emissionPool", [id]);
        pools += token === "CoreToken" ? core : primary;
      }
      const locked = await p().read<bigint>("SubnetManager", "lockedFees", [p().address(token)]);
      expect(locked).toBeGreaterThan(0n);
      expect(await balanceOf(p(), token, p().address("SubnetManager"))).toBe(locked + pools);
    }
  });
});
