/**
 * GET /wallets/{address}/claimable on the seeded devnet (three datanets, four pods, four epochs,
 * claims, a republish, a moderated pod), extended here with a fifth pod, emission rates changed
 * twice in one epoch, a pod sold to another wallet and votes in the open epoch. For EVERY pod,
 * epoch and wallet the route's owner and voter shares must equal the contracts' own views
 * (PodManager.podOwnerClaimable / voterClaimable) wei for wei; real claims pay exactly what the
 * route said, and then disappear from it.
 */
import { sql } from "drizzle-orm";
import { createPublicClient, decodeEventLog, getAddress, http, parseEther, type Abi, type Address, type TransactionReceipt } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { claimableRowsQuery } from "../../api/platform/repositories/claimable";
import { ROLES, roleAccount, type Role } from "../../devnet/accounts";
import { BASE, json, usePlatformHarness } from "./harness";

const h = usePlatformHarness({ seed: true, indexer: true });
const who = (role: Role) => roleAccount(role);
const CORE = (n: string) => parseEther(n);
const WALLETS = Object.keys(ROLES) as Role[];

type Shares = { core: string; primary: string };
type Entry = { podId: string; epoch: number; subnetId: string; primaryToken: string | null; owner: Shares; voter: Shares };
type Totals = { owner: string; voter: string; total: string };
type Claimable = {
  address: string;
  currentEpoch: number;
  coreToken: string;
  entries: Entry[];
  totals: { core: Totals; primary: Array<Totals & { token: string }> };
};

let podCount = 0n;
let currentEpoch = 0n;

const p = () => h().devnet.protocol;

async function claimable(address: string): Promise<Claimable> {
  const response = await h().request(`${BASE}/wallets/${address}/claimable`);
  expect(response.status).toBe(200);
  return (await json(response)).data;
}

/** Runs at most 8 calls at a time (a loaded machine's anvil times out on hundreds at once). */
function limiter(max: number) {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async <T>(call: () => Promise<T>): Promise<T> => {
    while (active >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await call();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}
const limited = limiter(4);

/** What the contracts say every wallet can claim now: per wallet, the entries with something positive. */
async function fromContracts(): Promise<Map<string, Entry[]>> {
  // its own client with a generous timeout: ~500 views on a loaded two-core machine can queue in anvil
  const publicClient = createPublicClient({ transport: http(h().devnet.chain.rpcUrl, { timeout: 120_000 }) });
  // one block for every read
  const blockNumber = await publicClient.getBlockNumber({ cacheTime: 0 });
  const read = <T>(functionName: string, args: readonly unknown[]) =>
    limited(() => publicClient.readContract({
      address: p().address("PodManager"),
      abi: p().abis.PodManager as Abi,
      functionName,
      args,
      blockNumber,
    }) as Promise<T>);
  const pods = Array.from({ length: Number(podCount) }, (_, i) => BigInt(i + 1));
  // every epoch so far, the open one included (it must show nothing)
  const epochs = Array.from({ length: Number(currentEpoch) }, (_, i) => BigInt(i + 1));
  const owners = new Map<bigint, string>();
  for (const pod of pods) owners.set(pod, (await read<Address>("ownerOf", [pod])).toLowerCase());
  const primaryToken = await p().read<Address>("SubnetManager", "getSubnetPrimaryToken", [1n]);
  const cells = pods.flatMap((pod) => epochs.map((epoch) => ({ pod, epoch })));
  const views = await Promise.all(
    cells.map(({ pod, epoch }) =>
      Promise.all([
        read<readonly [bigint, bigint]>("podOwnerClaimable", [pod, epoch]),
        read<bigint>("podEpochSubnet", [pod, epoch]),
        Promise.all(WALLETS.map((role) => read<readonly [bigint, bigint]>("voterClaimable", [who(role).address, pod, epoch]))),
      ]),
    ),
  );
  const result = new Map<string, Entry[]>(WALLETS.map((role) => [who(role).address.toLowerCase(), []]));
  cells.forEach(({ pod, epoch }, cell) => {
    const [ownerAmounts, subnetId, voterAmounts] = views[cell]!;
    WALLETS.forEach((role, i) => {
      const wallet = who(role).address.toLowerCase();
      const own: readonly [bigint, bigint] = owners.get(pod) === wallet ? ownerAmounts : [0n, 0n];
      const vote = voterAmounts[i]!;
      if (own[0] + own[1] + vote[0] + vote[1] === 0n) return;
      result.get(wallet)!.push({
        podId: String(pod),
        epoch: Number(epoch),
        subnetId: String(subnetId),
        // every seeded datanet has the demo token as its primary token
        primaryToken: primaryToken.toLowerCase(),
        owner: { core: String(own[0]), primary: String(own[1]) },
        voter: { core: String(vote[0]), primary: String(vote[1]) },
      });
    });
  });
  return result;
}

type PlanNode = { "Node Type": string; "Relation Name"?: string; Plans?: PlanNode[] };

const sum = (values: string[]) => String(values.reduce((a, b) => a + BigInt(b), 0n));

/** Every wallet: the route equals the contracts, and its totals are the sums of its entries. */
async function expectRouteEqualsContracts(): Promise<Map<string, Claimable>> {
  const expected = await fromContracts();
  const answers = new Map<string, Claimable>();
  for (const [wallet, entries] of expected) {
    const got = await claimable(wallet);
    answers.set(wallet, got);
    expect(got.currentEpoch).toBe(Number(currentEpoch));
    expect(got.address).toBe(wallet);
    expect(got.entries, wallet).toEqual(entries);
    expect(got.totals.core).toEqual({
      owner: sum(entries.map((e) => e.owner.core)),
      voter: sum(entries.map((e) => e.voter.core)),
      total: sum(entries.flatMap((e) => [e.owner.core, e.voter.core])),
    });
    const primaryOwner = sum(entries.map((e) => e.owner.primary));
    const primaryVoter = sum(entries.map((e) => e.voter.primary));
    const primaryTotal = sum([primaryOwner, primaryVoter]);
    expect(got.totals.primary).toEqual(
      primaryTotal === "0"
        ? []
        : [{ token: entries[0]!.primaryToken, owner: primaryOwner, voter: primaryVoter, total: primaryTotal }],
    );
  }
  return answers;
}

function claimedAmounts(receipt: TransactionReceipt): { core: bigint; primary: bigint } {
  for (const log of receipt.logs) {
    try {
      const event = decodeEventLog({ abi: p().abis.PodManager, data: log.data, topics: log.topics });
      if (event.eventName === "PodOwnerEmissionsClaimed" || event.eventName === "VoterEmissionsClaimed") {
        const args = event.args as { coreAmount: bigint; primaryAmount: bigint };
        return { core: args.coreAmount, primary: args.primaryAmount };
      }
    } catch {
      // another contract's log
    }
  }
  throw new Error("no claim event in the receipt");
}

beforeAll(async () => {
  const vote = (role: Role, pod: bigint, votes: string, up: boolean) =>
    p().write(who(role), "PodManager", "vote", [pod, CORE(votes), up]);
  expect(await p().currentEpoch()).toBe(4);
  // epoch 4: the research datanet's rates change twice (the last value of the epoch applies)
  await p().write(who("curatorA"), "SubnetManager", "setEmissionsPerEpochCORE", [1n, CORE("700")]);
  await p().write(who("curatorA"), "SubnetManager", "setEmissionsPerEpochCORE", [1n, 1_234_567_890_123_456_789_013n]);
  await p().write(who("curatorA"), "SubnetManager", "setEmissionsPerEpochPrimaryToken", [1n, 333_333_333_333_333_333_337n]);
  // a fifth pod, votes with odd numbers so that every division rounds
  const pod5 = await p().read<bigint>("PodManager", "nextPodId");
  await p().write(who("curatorA"), "PodManager", "mintPodWithCORE", [who("curatorA").address, 1n]);
  await vote("voter1", pod5, "77.000000000000000001", true);
  await vote("voter3", pod5, "41.3", true);
  await vote("voter2", pod5, "13", false);
  await vote("voter2", 2n, "33.33", true);
  await vote("voter1", 4n, "19", true);
  await vote("voter3", 4n, "7", false);
  // pod 2 changes hands: the owner share of its past epochs now goes to the buyer
  await p().write(who("voter1"), "PodManager", "transferFrom", [who("voter1").address, who("buyer").address, 2n]);
  // epoch 5 is open: its votes count for nothing yet
  await p().advanceToNextEpoch();
  await vote("voter3", pod5, "5", true);
  await vote("voter1", pod5, "3", true);
  podCount = pod5;
  currentEpoch = BigInt(await p().currentEpoch());
  await h().caughtUp();
}, 120_000);

describe("GET /wallets/{address}/claimable", () => {
  it("equals PodManager's views for every pod, epoch and wallet, wei for wei", async () => {
    const answers = await expectRouteEqualsContracts();
    const all = [...answers.values()];
    // the scenario exercises what it claims to: owners, voters, both in one wallet, both tokens, a moved pod
    expect(all.flatMap((a) => a.entries).length).toBeGreaterThanOrEqual(10);
    expect(all.some((a) => a.entries.some((e) => e.owner.core !== "0") && a.entries.some((e) => e.voter.core !== "0"))).toBe(true);
    expect(all.some((a) => a.totals.primary.length > 0)).toBe(true);
    expect(answers.get(who("buyer").address.toLowerCase())!.entries.some((e) => e.podId === "2" && e.owner.core !== "0")).toBe(true);
    expect(all.every((a) => a.entries.every((e) => e.epoch < Number(currentEpoch)))).toBe(true);
    // the seed's claims are gone: pod 1's owner share of epochs 1 and 2
    const curatorB = answers.get(who("curatorB").address.toLowerCase())!;
    expect(curatorB.entries.filter((e) => e.podId === "1" && e.epoch <= 2 && e.owner.core !== "0")).toEqual([]);
  }, 300_000);

  it("pays exactly what it listed on a real claim, then no longer lists the claimed share", async () => {
    const curatorA = who("curatorA").address.toLowerCase();
    const buyer = who("buyer").address.toLowerCase();
    const voter1 = who("voter1").address.toLowerCase();
    const before = {
      curatorA: await claimable(curatorA),
      buyer: await claimable(buyer),
      voter1: await claimable(voter1),
    };
    const pick = (c: Claimable, podId: string, epoch: number) => c.entries.find((e) => e.podId === podId && e.epoch === epoch)!;
    const claims: Array<{ receipt: TransactionReceipt; listed: Shares; wallet: string; podId: string; epoch: number; kind: "owner" | "voter" }> = [];
    // the server wallet sends all of them: the payee is the owner or the voter, whoever sends
    const sender = who("serverWallet");
    const ownerClaim = async (wallet: string, c: Claimable, podId: string, epoch: number) => {
      const receipt = await p().write(sender, "PodManager", "claimPodOwnerEmissions", [BigInt(podId), BigInt(epoch)]);
      claims.push({ receipt, listed: pick(c, podId, epoch).owner, wallet, podId, epoch, kind: "owner" });
    };
    const voterClaim = async (wallet: string, c: Claimable, podId: string, epoch: number) => {
      const receipt = await p().write(sender, "PodManager", "claimVoterEmissions", [getAddress(wallet), BigInt(podId), BigInt(epoch)]);
      claims.push({ receipt, listed: pick(c, podId, epoch).voter, wallet, podId, epoch, kind: "voter" });
    };
    await ownerClaim(curatorA, before.curatorA, String(podCount), 4);
    await ownerClaim(buyer, before.buyer, "2", 3);
    await voterClaim(voter1, before.voter1, String(podCount), 4);
    await voterClaim(voter1, before.voter1, "4", 3);
    for (const claim of claims) {
      const paid = claimedAmounts(claim.receipt);
      expect({ core: String(paid.core), primary: String(paid.primary) }).toEqual(claim.listed);
      expect(paid.core).toBeGreaterThan(0n);
    }
    await h().caughtUp();
    for (const claim of claims) {
      const after = await claimable(claim.wallet);
      const entry = after.entries.find((e) => e.podId === claim.podId && e.epoch === claim.epoch);
      expect(entry?.[claim.kind] ?? { core: "0", primary: "0" }).toEqual({ core: "0", primary: "0" });
    }
    await expectRouteEqualsContracts();
  }, 300_000);

  it("accepts a checksummed address and answers an empty list for a wallet with nothing", async () => {
    const voter2 = who("voter2").address;
    expect(await claimable(voter2)).toEqual(await claimable(voter2.toLowerCase()));
    const nobody = await claimable("0x000000000000000000000000000000000000dEaD");
    expect(nobody).toMatchObject({
      address: "0x000000000000000000000000000000000000dead",
      entries: [],
      totals: { core: { owner: "0", voter: "0", total: "0" }, primary: [] },
    });
  });

  it("refuses a malformed address with a flat 400", async () => {
    for (const bad of ["0x1234", "not-an-address", "0xZZ70997970c51812dc3a010c7d01b50e0d17dc79c8", `0x${"a".repeat(41)}`]) {
      const response = await h().request(`${BASE}/wallets/${bad}/claimable`);
      expect(response.status).toBe(400);
      const body = await json(response);
      expect(Object.keys(body)).toEqual(["error"]);
      expect(body.error).toMatch(/address/);
    }
  });

  it("reaches every table through an index (cost grows with the wallet's rows, not the tables)", async () => {
    const plan = await h().store.db.transaction(async (tx) => {
      await tx.execute(sql`SET LOCAL enable_seqscan = off`);
      const result = await tx.execute<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(
        sql`EXPLAIN (FORMAT JSON) ${claimableRowsQuery(who("voter1").address.toLowerCase() as Address, currentEpoch)}`,
      );
      return result.rows[0]!["QUERY PLAN"][0]!.Plan;
    });
    const scans: Array<{ node: string; relation: string }> = [];
    const walk = (node: PlanNode) => {
      if (node["Relation Name"]) scans.push({ node: node["Node Type"], relation: node["Relation Name"] });
      for (const child of node.Plans ?? []) walk(child);
    };
    walk(plan);
    const relations = new Set(scans.map((scan) => scan.relation));
    for (const table of ["pod", "pod_epoch", "voter_pod_epoch", "datanet_epoch", "datanet", "datanet_parameter_update"]) {
      expect(relations).toContain(table);
    }
    // with sequential scans priced out, a table without a usable index would still show one
    expect(scans.filter((scan) => !/^(Index Scan|Index Only Scan|Bitmap Heap Scan)$/.test(scan.node))).toEqual([]);
  });
});
