import { describe, expect, it } from "vitest";
import { scanEmissions, type Amounts, type EmissionsSource } from "../../api/chat/services/emissions";

/** A pod whose owner share per epoch is `due` (chain truth); `claimedOnChain` epochs are paid. */
function fakeSource(options: {
  current: bigint;
  due: Record<string, bigint>;
  claimedOnChain?: bigint[];
  indexedClaims?: bigint[];
}) {
  const claimed = new Set((options.claimedOnChain ?? []).map(String));
  const indexed = new Set((options.indexedClaims ?? []).map(String));
  const reads: bigint[] = [];
  const source: EmissionsSource = {
    currentEpoch: async () => options.current,
    votedEpochs: async (_pod, before) =>
      Object.keys(options.due)
        .map(BigInt)
        .filter((e) => e < before)
        .map((epoch) => ({
          epoch,
          claimedIndexed: indexed.has(String(epoch)),
          claimedAmounts: indexed.has(String(epoch)) ? { core: options.due[String(epoch)]!, primary: 0n } : undefined,
        })),
    claimable: async (_pod, epoch): Promise<Amounts> => {
      reads.push(epoch);
      if (claimed.has(String(epoch)) || epoch >= options.current) return { core: 0n, primary: 0n };
      return { core: options.due[String(epoch)] ?? 0n, primary: 0n };
    },
    hasClaimed: async (_pod, epoch) => claimed.has(String(epoch)),
    podEmissions: async (_pod, epoch) => ({ core: (options.due[String(epoch)] ?? 0n) * 2n, primary: 0n }),
  };
  return { source, reads, claim: (epoch: bigint) => claimed.add(String(epoch)) };
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => BigInt(from + i));

describe("scanEmissions", () => {
  it("starts at the oldest epoch with something due and lists the window's voted epochs", async () => {
    const { source } = fakeSource({ current: 6n, due: { "1": 10n, "2": 0n, "3": 7n, "5": 3n }, claimedOnChain: [1n] });
    const scan = await scanEmissions(source, 1n);
    expect(scan.window).toEqual({ from: 3n, to: 5n });
    expect(scan.epochs).toEqual([
      { epoch: 3n, core: 7n, primary: 0n, claimed: false },
      { epoch: 5n, core: 3n, primary: 0n, claimed: false },
    ]);
    expect(scan.totalDue).toEqual({ core: 10n, primary: 0n });
    expect(scan.moreEpochsAvailable).toBe(false);
  });

  it("never includes the open epoch", async () => {
    const { source } = fakeSource({ current: 3n, due: { "2": 5n, "3": 9n } });
    const scan = await scanEmissions(source, 1n);
    expect(scan.epochs.map((e) => e.epoch)).toEqual([2n]);
  });

  it("scans at most 50 epochs and continues by itself after a claim (no cursor)", async () => {
    const due = Object.fromEntries(range(1, 120).map((e) => [String(e), e]));
    const fake = fakeSource({ current: 121n, due });
    const first = await scanEmissions(fake.source, 1n);
    expect(first.window).toEqual({ from: 1n, to: 50n });
    expect(first.due).toHaveLength(50);
    expect(first.moreEpochsAvailable).toBe(true);
    for (const entry of first.due) fake.claim(entry.epoch); // the chain settles them; the index lags

    const second = await scanEmissions(fake.source, 1n);
    expect(second.window).toEqual({ from: 51n, to: 100n });
    expect(second.due.map((e) => e.epoch)).toEqual(range(51, 100));
    expect(second.moreEpochsAvailable).toBe(true);
    for (const entry of second.due) fake.claim(entry.epoch);

    const third = await scanEmissions(fake.source, 1n);
    expect(third.window).toEqual({ from: 101n, to: 120n });
    expect(third.moreEpochsAvailable).toBe(false);
    for (const entry of third.due) fake.claim(entry.epoch);

    const done = await scanEmissions(fake.source, 1n);
    expect(done.due).toEqual([]);
    expect(done.window).toEqual({ from: 71n, to: 120n }); // nothing due: the latest 50 closed epochs
    expect(done.epochs.every((e) => e.claimed)).toBe(true);
  });

  it("starts at fromEpoch when given", async () => {
    const due = Object.fromEntries(range(1, 80).map((e) => [String(e), 1n]));
    const { source } = fakeSource({ current: 81n, due });
    const scan = await scanEmissions(source, 1n, 40n);
    expect(scan.window).toEqual({ from: 40n, to: 80n });
    expect(scan.due).toHaveLength(41);
    expect((await scanEmissions(source, 1n, 81n)).window).toBeNull();
  });

  it("shows claimed epochs with the amount their claim paid (index first, else the chain's share)", async () => {
    const { source } = fakeSource({ current: 5n, due: { "1": 10n, "2": 8n, "3": 6n }, claimedOnChain: [1n, 2n], indexedClaims: [1n] });
    const scan = await scanEmissions(source, 1n, 1n);
    expect(scan.epochs).toEqual([
      { epoch: 1n, core: 10n, primary: 0n, claimed: true },
      { epoch: 2n, core: 8n, primary: 0n, claimed: true },
      { epoch: 3n, core: 6n, primary: 0n, claimed: false },
    ]);
    expect(scan.totalDue.core).toBe(6n);
  });

  it("is empty in the first epoch", async () => {
    const { source } = fakeSource({ current: 1n, due: {} });
    expect(await scanEmissions(source, 1n)).toMatchObject({ window: null, epochs: [], moreEpochsAvailable: false });
  });
});
