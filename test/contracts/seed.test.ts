import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEther } from "viem";
import { ROLES, roleAccount, type Role } from "../../devnet/accounts";
import { startDevnet, type Devnet } from "../support/chain";
import { BURN_ADDRESS } from "./helpers";

const ROLE_NAMES = Object.keys(ROLES) as Role[];
const VOTE_EPOCHS = [1n, 2n, 3n];
const EMISSION_EPOCHS = [1n, 2n, 3n, 4n];

/**
 * Every view of the seeded state that does not depend on wall-clock time, keyed by a readable
 * path so that a mismatch between two chains shows where it is. Lock expiries (absolute
 * timestamps) are left out on purpose.
 */
async function snapshot(devnet: Devnet): Promise<Record<string, unknown>> {
  const p = devnet.protocol;
  const out: Record<string, unknown> = {};
  const jobs: Promise<void>[] = [];
  const put = (key: string, contract: Parameters<typeof p.read>[0], fn: string, args: readonly unknown[] = []) => {
    jobs.push(
      p.read(contract, fn, args).then(
        (value) => {
          out[key] = value;
        },
        (error: Error) => {
          out[key] = `reverted: ${error.name}`;
        },
      ),
    );
  };
  const roles = ROLE_NAMES.map((role) => [role, roleAccount(role).address] as const);

  const [subnets, pods, locks] = await Promise.all([
    p.read<bigint>("SubnetManager", "nextSubnetId"),
    p.read<bigint>("PodManager", "nextPodId"),
    p.read<bigint>("VeCore", "nextLockupId"),
  ]);
  out.counts = { subnets, pods, locks };
  put("currentEpoch", "VeCore", "currentEpoch");

  for (let s = 1n; s < subnets; s++) {
    put(`subnet ${s} owner`, "SubnetManager", "ownerOf", [s]);
    put(`subnet ${s} config`, "SubnetManager", "getSubnet", [s]);
    put(`subnet ${s} pools`, "SubnetManager", "emissionPool", [s]);
    for (const e of EMISSION_EPOCHS) put(`subnet ${s} emissions@${e}`, "SubnetManager", "emissionsPerEpochAt", [s, e]);
    for (const e of VOTE_EPOCHS) put(`subnet ${s} net@${e}`, "PodManager", "subnetPositiveNetVotes", [s, e]);
    for (const [role, address] of roles) put(`subnet ${s} access ${role}`, "SubnetManager", "hasSubnetAccess", [s, address]);
  }

  for (let pod = 1n; pod < pods; pod++) {
    put(`pod ${pod} owner`, "PodManager", "ownerOf", [pod]);
    put(`pod ${pod} subnet`, "PodManager", "podSubnet", [pod]);
    put(`pod ${pod} record`, "PodManager", "getPod", [pod]);
    put(`pod ${pod} validityEpoch`, "PodManager", "getPodValidityEpoch", [pod]);
    put(`pod ${pod} valid`, "PodManager", "podValid", [pod]);
    for (const e of VOTE_EPOCHS) {
      const at = `pod ${pod} @${e}`;
      put(`${at} up`, "PodManager", "podUpVotes", [pod, e]);
      put(`${at} down`, "PodManager", "podDownVotes", [pod, e]);
      put(`${at} subnet`, "PodManager", "podEpochSubnet", [pod, e]);
      put(`${at} emissions`, "PodManager", "podEmissions", [pod, e]);
      put(`${at} owner claimed`, "PodManager", "hasPodOwnerClaimedEmissions", [e, pod]);
      put(`${at} owner claimable`, "PodManager", "podOwnerClaimable", [pod, e]);
      for (const [role, address] of roles) {
        put(`${at} ${role} up`, "PodManager", "voterUpVotes", [address, pod, e]);
        put(`${at} ${role} down`, "PodManager", "voterDownVotes", [address, pod, e]);
        put(`${at} ${role} claimed`, "PodManager", "hasUserClaimedEmissions", [e, pod, address]);
        put(`${at} ${role} claimable`, "PodManager", "voterClaimable", [address, pod, e]);
      }
    }
  }

  for (let lock = 1n; lock < locks; lock++) {
    put(`lock ${lock} owner`, "VeCore", "ownerOf", [lock]);
    jobs.push(
      p.read<readonly [bigint, bigint, bigint, bigint]>("VeCore", "lockupData", [lock]).then(([amount, , , votingPower]) => {
        out[`lock ${lock} amount`] = amount;
        out[`lock ${lock} votingPower`] = votingPower;
      }),
    );
  }

  const holders = [
    ...roles,
    ["burn", BURN_ADDRESS],
    ["VeCore", p.address("VeCore")],
    ["SubnetManager", p.address("SubnetManager")],
    ["PodManager", p.address("PodManager")],
  ] as const;
  for (const token of ["CoreToken", "DemoToken"] as const) {
    put(`${token} supply`, token, "totalSupply");
    put(`${token} lockedFees`, "SubnetManager", "lockedFees", [p.address(token)]);
    for (const [name, address] of holders) put(`${token} balance ${name}`, token, "balanceOf", [address]);
  }
  for (const [role, address] of roles) {
    put(`votingPower ${role}`, "VeCore", "votingPowerOf", [address]);
    put(`governance ${role}`, "VeCore", "isGovernanceAccount", [address]);
    for (const e of VOTE_EPOCHS) put(`cast ${role} @${e}`, "PodManager", "votesCastedByVoterForEpoch", [address, e]);
  }

  await Promise.all(jobs);
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

describe("seedDemo", () => {
  let a: Devnet;
  let b: Devnet;

  beforeAll(async () => {
    // one after the other, so the two chains do not share their wall-clock timing
    a = await startDevnet({ seed: true });
    b = await startDevnet({ seed: true });
  });
  afterAll(async () => {
    await Promise.all([a?.chain.stop(), b?.chain.stop()]);
  });

  it("reports 3 datanets, 4 pods and at least 3 epochs, matching the chain", async () => {
    for (const devnet of [a, b]) {
      const seed = devnet.seed!;
      expect(seed).toMatchObject({ subnets: 3, pods: 4 });
      expect(seed.finalEpoch).toBeGreaterThanOrEqual(3);
      const p = devnet.protocol;
      expect(await p.currentEpoch()).toBe(seed.finalEpoch);
      expect(await p.read("SubnetManager", "nextSubnetId")).toBe(BigInt(seed.subnets + 1));
      expect(await p.read("PodManager", "nextPodId")).toBe(BigInt(seed.pods + 1));
      expect(await p.read("VeCore", "nextLockupId")).toBe(BigInt(seed.locks + 1));
    }
    expect(a.seed).toEqual(b.seed);
  });

  it("deploys every contract at the same address and block on two fresh chains", () => {
    expect(a.deployment.contracts).toEqual(b.deployment.contracts);
    expect(a.deployment.parameters).toEqual(b.deployment.parameters);
  });

  it("yields the same state on two fresh chains: pods, votes, claims, balances, locks, fees, pools and epoch", async () => {
    const [left, right] = await Promise.all([snapshot(a), snapshot(b)]);
    // the snapshot is not trivially empty: the seed voted, claimed and moderated
    expect(left["pod 1 @1 up"]).toBeGreaterThan(0n);
    expect(left["pod 1 @2 subnet"]).toBe(2n); // republished into the second datanet
    expect(left["pod 1 @1 owner claimed"]).toBe(true);
    expect((left["pod 3 record"] as { invalidFromEpoch: bigint }).invalidFromEpoch).toBe(3n);
    expect(left["CoreToken lockedFees"]).toBeGreaterThan(0n);
    // lock changes happen on the seed's own clock: voter1's stake (1000 CORE, 365 days) and its
    // stakeMore (200 CORE) in the same instant earn exactly half their amount
    expect(left["lock 1 votingPower"]).toBe(parseEther("600"));
    expect(Object.values(left).some((value) => typeof value === "string" && value.startsWith("reverted"))).toBe(false);

    expect(right).toEqual(left);
  });
});
