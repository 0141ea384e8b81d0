import { describe, expect, it } from "vitest";
import { VeCoreAbi } from "../../abis";
import { useDevnet } from "../support/chain";
import { CORE, eventOf, fundRoles, latestTimestamp, mineAt, publishSubnet, who } from "./helpers";

const EPOCH = 3600n;

describe("VeCore epoch clock", () => {
  const devnet = useDevnet({ epochLengthSeconds: Number(EPOCH) });
  const p = () => devnet().protocol;
  const readBig = (fn: string, args: readonly unknown[] = []) => p().read<bigint>("VeCore", fn, args);

  it("the VeCore deployment block is genesis and lies in epoch 1, which spans [genesis, genesis + epochLength)", async () => {
    const { startBlock, address } = devnet().deployment.contracts.VeCore;
    const genesis = await readBig("genesis");
    const block = await p().publicClient.getBlock({ blockNumber: BigInt(startBlock) });
    expect(genesis).toBe(block.timestamp);

    const epochAtGenesis = await p().publicClient.readContract({
      address,
      abi: VeCoreAbi,
      functionName: "currentEpoch",
      blockNumber: BigInt(startBlock),
    });
    expect(epochAtGenesis).toBe(1n);
    expect(await readBig("epochLength")).toBe(EPOCH);
    expect(await readBig("epochStart", [1n])).toBe(genesis);
    expect(await readBig("epochEnd", [1n])).toBe(genesis + EPOCH);
    expect(await readBig("epochStart", [7n])).toBe(genesis + 6n * EPOCH);
    expect(await readBig("epochEnd", [7n])).toBe(genesis + 7n * EPOCH);
  });

  it("epochStart(0) and epochEnd(0) revert InvalidEpoch", async () => {
    await expect(readBig("epochStart", [0n])).rejects.toThrow(/InvalidEpoch/);
    await expect(readBig("epochEnd", [0n])).rejects.toThrow(/InvalidEpoch/);
  });

  it("epochEnd(e) - 1 is still in epoch e and epochEnd(e) is the first second of e + 1", async () => {
    const genesis = await readBig("genesis");
    for (const e of [1n, 2n, 5n]) {
      const end = await readBig("epochEnd", [e]);
      expect(await readBig("epochStart", [e + 1n])).toBe(end);
      expect(end).toBe(genesis + e * EPOCH);

      await mineAt(p(), end - 1n);
      expect(await latestTimestamp(p())).toBe(end - 1n);
      expect(await readBig("currentEpoch")).toBe(e);
      expect(await readBig("currentEpochEnd")).toBe(end);

      await mineAt(p(), end);
      expect(await readBig("currentEpoch")).toBe(e + 1n);
      expect(await readBig("currentEpochEnd")).toBe(end + EPOCH);
    }
  });

  it("currentEpochEnd is the end of the epoch holding the latest block, also mid-epoch", async () => {
    const epoch = await readBig("currentEpoch");
    const start = await readBig("epochStart", [epoch + 1n]);
    await mineAt(p(), start + EPOCH / 2n);
    expect(await readBig("currentEpoch")).toBe(epoch + 1n);
    expect(await readBig("currentEpochEnd")).toBe(start + EPOCH);
    expect(await readBig("currentEpochEnd")).toBe(await readBig("epochEnd", [epoch + 1n]));
  });

  it("advanceToNextEpoch lands on the first second of the next epoch", async () => {
    const epoch = await p().currentEpoch();
    const end = await readBig("epochEnd", [BigInt(epoch)]);
    expect(await p().advanceToNextEpoch()).toBe(epoch + 1);
    expect(await latestTimestamp(p())).toBe(end);
  });

  it("a transaction mined at epochEnd(e) - 1 is recorded in epoch e and one mined at epochEnd(e) in e + 1", async () => {
    await fundRoles(p(), ["curatorA"], CORE(1_000));
    const subnetId = await publishSubnet(p(), who("curatorA"));
    const epoch = await readBig("currentEpoch");
    const end = await readBig("epochEnd", [epoch]);

    await p().testClient.setNextBlockTimestamp({ timestamp: end - 1n });
    const last = await p().write(who("curatorA"), "SubnetManager", "setEmissionsPerEpochCORE", [subnetId, CORE(10)]);
    expect(eventOf<{ epoch: bigint }>(p(), last, "SubnetManager", "SubnetParameterUpdated").epoch).toBe(epoch);

    await p().testClient.setNextBlockTimestamp({ timestamp: end });
    const first = await p().write(who("curatorA"), "SubnetManager", "setEmissionsPerEpochCORE", [subnetId, CORE(20)]);
    expect(eventOf<{ epoch: bigint }>(p(), first, "SubnetManager", "SubnetParameterUpdated").epoch).toBe(epoch + 1n);

    expect(await p().read("SubnetManager", "emissionsPerEpochAt", [subnetId, epoch])).toEqual([CORE(10), 0n]);
    expect(await p().read("SubnetManager", "emissionsPerEpochAt", [subnetId, epoch + 1n])).toEqual([CORE(20), 0n]);
  });
});
