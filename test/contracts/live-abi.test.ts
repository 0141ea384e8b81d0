/**
 * The live platform's public clients (its command-line client and its agent node) call the
 * protocol through minimal hand-written ABIs. This test is such a client: every call below goes
 * through the `parseAbi` fragments here, with the live signatures — never through our generated
 * ABIs — against a seeded devnet, and the answers are checked against our own state (the
 * generated ABIs' views and the events the seed emitted).
 *
 * The functions the live contracts name after their token (`mintPodWithREPPO`,
 * `accessSubnetWithREPPOFee`, `getAccessFeeREPPO`, `getPublishingFeeREPPO`,
 * `getSubnetReppoSeedings`, `getReppoEmissionsPerEpoch`) are aliases of the CORE-named ones: the
 * views answer the same values, and the two writes the same state and the same events.
 */
import { describe, expect, it } from "vitest";
import {
  BaseError,
  ContractFunctionRevertedError,
  parseAbi,
  parseEther,
  toFunctionSelector,
  type Abi,
  type AbiFunction,
  type Address,
} from "viem";
import { PodManagerAbi, SubnetManagerAbi, VeCoreAbi } from "../../abis";
import { ROLES, roleAccount, type Role } from "../../devnet/accounts";
import { useDevnet } from "../support/chain";

const CORE = (n: number) => parseEther(String(n));

const LIVE_POD_MANAGER = parseAbi([
  "function vote(uint256 podId, uint256 votes, bool upVote)",
  "function getPodUpVotesOfEpoch(uint256 epoch, uint256 podId) view returns (uint256)",
  "function getPodDownVotesOfEpoch(uint256 epoch, uint256 podId) view returns (uint256)",
  "function getVotersUpVotesForPodInEpoch(uint256 epoch, uint256 podId, address voter) view returns (uint256)",
  "function getVotersDownVotesForPodInEpoch(uint256 epoch, uint256 podId, address voter) view returns (uint256)",
  "function getSubnetPrimaryTokenSeedings(uint256 subnetId) view returns (uint256)",
  "function hasPodOwnerClaimedEmissions(uint256 epoch, uint256 podId) view returns (bool)",
  "function hasUserClaimedEmissions(uint256 epoch, uint256 podId, address user) view returns (bool)",
  "function mintPodWithREPPO(address to, uint256 subnetId) returns (uint256 podId)",
  "function getSubnetReppoSeedings(uint256 subnetId) view returns (uint256)",
  "error InsufficientVotingPower()",
]);

const LIVE_SUBNET_MANAGER = parseAbi([
  "function getAccessFeePrimaryToken(uint256 subnetId) view returns (uint256)",
  "function getPublishingFeePrimaryToken(uint256 subnetId) view returns (uint256)",
  "function getPrimaryTokenEmissionsPerEpoch(uint256 subnetId) view returns (uint256)",
  "function getSubnetPrimaryToken(uint256 subnetId) view returns (address)",
  "function accessSubnetWithREPPOFee(uint256 subnetId, address to)",
  "function getAccessFeeREPPO(uint256 subnetId) view returns (uint256)",
  "function getPublishingFeeREPPO(uint256 subnetId) view returns (uint256)",
  "function getReppoEmissionsPerEpoch(uint256 subnetId) view returns (uint256)",
]);

const LIVE_VE = parseAbi([
  "function lockupData(uint256 lockupId) view returns (uint256 amount, uint256 expiresAt, uint256 unused, uint256 votingPower)",
  "function votingPowerOf(address) view returns (uint256)",
]);

/** Selectors the live clients hard-code for raw eth_calls (each computed there from the signature). */
const LIVE_SELECTORS: Record<string, `0x${string}`> = {
  "hasPodOwnerClaimedEmissions(uint256,uint256)": "0x5b778a36",
  "hasUserClaimedEmissions(uint256,uint256,address)": "0xec1e3908",
  "getVotersUpVotesForPodInEpoch(uint256,uint256,address)": "0x08856f83",
  "getVotersDownVotesForPodInEpoch(uint256,uint256,address)": "0x8c03a3e7",
  "getSubnetPrimaryTokenSeedings(uint256)": "0xb4025408",
  "getPrimaryTokenEmissionsPerEpoch(uint256)": "0x9f9a490b",
  "getSubnetPrimaryToken(uint256)": "0x0d1b89d8",
  "getSubnetReppoSeedings(uint256)": "0x8b473a17",
  "getReppoEmissionsPerEpoch(uint256)": "0xd323657d",
};

/** Every other member the live clients call (contracts/LIVE_ABI.md lists them with their local equivalents). */
const LIVE_OTHER_MEMBERS = {
  PodManager: parseAbi([
    "function mintPodWithPrimaryToken(address to, uint256 subnetId) returns (uint256 podId)",
    "function claimPodOwnerEmissions(uint256 podId, uint256 epoch)",
    "function claimVoterEmissions(address voter, uint256 podId, uint256 epoch)",
    "function ownerOf(uint256 tokenId) view returns (address)",
    "function podValid(uint256 podId) view returns (bool)",
    "function getPodValidityEpoch(uint256 podId) view returns (uint256)",
    "function votesCastedByVoterForEpoch(address voter, uint256 epoch) view returns (uint256)",
  ]),
  SubnetManager: parseAbi([
    "function accessSubnetWithPrimaryTokenFee(uint256 subnetId, address to)",
    "function hasSubnetAccess(uint256 subnetId, address address_) view returns (bool)",
    "function validSubnet(uint256 subnetId) view returns (bool)",
  ]),
  VeCore: parseAbi([
    "function currentEpoch() view returns (uint256)",
    "function epochLength() view returns (uint256)",
    "function epochEnd(uint256 epoch) view returns (uint256)",
    "function stake(uint256 amount, uint256 duration) returns (uint256 lockupId)",
    "function stakeMore(uint256 lockupId, uint256 amount)",
    "function extendLock(uint256 lockupId, uint256 duration)",
    "function withdraw(uint256 tokenId, address to)",
    "function previewPoints(uint256 amount, uint256 duration) view returns (uint256 points, uint256 end)",
    "function minStakeDuration() view returns (uint256)",
    "function maxStakeDuration() view returns (uint256)",
    "function balanceOf(address) view returns (uint256)",
    "function ownerOf(uint256 tokenId) view returns (address)",
  ]),
};

const SEEDED_EPOCHS = [1n, 2n, 3n];
const ROLE_NAMES = Object.keys(ROLES) as Role[];

const signature = (f: AbiFunction) => `${f.name}(${f.inputs.map((i) => i.type).join(",")})`;

describe("the live clients' view functions and revert names on the local contracts", () => {
  const devnet = useDevnet({ seed: true });
  const p = () => devnet().protocol;

  const pm = <T>(functionName: string, args: readonly unknown[]) =>
    p().publicClient.readContract({
      address: p().address("PodManager"),
      abi: LIVE_POD_MANAGER,
      functionName,
      args,
    } as never) as Promise<T>;
  const sm = <T>(functionName: string, args: readonly unknown[]) =>
    p().publicClient.readContract({
      address: p().address("SubnetManager"),
      abi: LIVE_SUBNET_MANAGER,
      functionName,
      args,
    } as never) as Promise<T>;
  const ve = <T>(functionName: string, args: readonly unknown[]) =>
    p().publicClient.readContract({ address: p().address("VeCore"), abi: LIVE_VE, functionName, args } as never) as Promise<T>;

  const events = async (contract: "PodManager" | "VeCore", eventName: string) =>
    (await p().publicClient.getContractEvents({
      address: p().address(contract),
      abi: contract === "PodManager" ? PodManagerAbi : VeCoreAbi,
      eventName,
      fromBlock: 0n,
    } as never)) as unknown as { args: Record<string, unknown>; blockNumber: bigint; logIndex: number }[];

  it("every live fragment exists in our generated ABIs with the same selector and output types", () => {
    const ours = ([...PodManagerAbi, ...SubnetManagerAbi, ...VeCoreAbi] as Abi).filter(
      (item): item is AbiFunction => item.type === "function",
    );
    for (const live of [...LIVE_POD_MANAGER, ...LIVE_SUBNET_MANAGER, ...LIVE_VE]) {
      if (live.type !== "function") continue;
      const match = ours.find((f) => toFunctionSelector(f) === toFunctionSelector(live));
      expect(match, signature(live)).toBeDefined();
      expect(match!.outputs.map((o) => o.type), signature(live)).toEqual(live.outputs.map((o) => o.type));
    }
    for (const [sig, selector] of Object.entries(LIVE_SELECTORS)) expect(toFunctionSelector(`function ${sig}`), sig).toBe(selector);
    for (const [contract, fragments] of Object.entries(LIVE_OTHER_MEMBERS)) {
      const abi = { PodManager: PodManagerAbi, SubnetManager: SubnetManagerAbi, VeCore: VeCoreAbi }[contract] as Abi;
      for (const live of fragments) {
        const match = abi.find((f): f is AbiFunction => f.type === "function" && toFunctionSelector(f) === toFunctionSelector(live));
        expect(match, `${contract}.${signature(live)}`).toBeDefined();
        expect(match!.outputs.map((o) => o.type), signature(live)).toEqual(live.outputs.map((o) => o.type));
      }
    }
    // the old (podId, epoch) and (voter, podId, epoch) claim getters are gone: one answer per selector
    const names = ours.map((f) => f.name);
    expect(names.filter((n) => n === "hasPodOwnerClaimedEmissions")).toHaveLength(1);
    expect(names.filter((n) => n === "hasUserClaimedEmissions")).toHaveLength(1);
    expect((PodManagerAbi as Abi).some((item) => item.type === "error" && item.name === "VoteBudgetExceeded")).toBe(false);
  });

  it("hasPodOwnerClaimedEmissions(epoch, podId) is true exactly for the (pod, epoch) pairs the seed claimed", async () => {
    // the seed claimed pod 1's owner share for epochs 1 and 2
    expect(await pm("hasPodOwnerClaimedEmissions", [2n, 1n])).toBe(true);
    expect(await pm("hasPodOwnerClaimedEmissions", [1n, 1n])).toBe(true);
    // swapped: pod 2, epoch 1 was never claimed (the old argument order answered this with pod 1 / epoch 2)
    expect(await pm("hasPodOwnerClaimedEmissions", [1n, 2n])).toBe(false);
    expect(await pm("hasPodOwnerClaimedEmissions", [3n, 1n])).toBe(false);

    const claimed = new Set(
      (await events("PodManager", "PodOwnerEmissionsClaimed")).map((l) => `${l.args.podId}-${l.args.epoch}`),
    );
    expect(claimed.size).toBe(2);
    const pods = await p().read<bigint>("PodManager", "nextPodId");
    for (let pod = 1n; pod < pods; pod++) {
      for (const epoch of SEEDED_EPOCHS) {
        expect(await pm("hasPodOwnerClaimedEmissions", [epoch, pod]), `pod ${pod} @${epoch}`).toBe(claimed.has(`${pod}-${epoch}`));
      }
    }
  });

  it("hasUserClaimedEmissions(epoch, podId, user) is true exactly for the voter claims the seed made", async () => {
    // voter2 claimed on pod 1 and voter1 on pod 3, both for epoch 1
    expect(await pm("hasUserClaimedEmissions", [1n, 1n, roleAccount("voter2").address])).toBe(true);
    expect(await pm("hasUserClaimedEmissions", [1n, 3n, roleAccount("voter1").address])).toBe(true);
    expect(await pm("hasUserClaimedEmissions", [1n, 1n, roleAccount("voter1").address])).toBe(false);

    const claimed = new Set(
      (await events("PodManager", "VoterEmissionsClaimed")).map(
        (l) => `${(l.args.voter as string).toLowerCase()}-${l.args.podId}-${l.args.epoch}`,
      ),
    );
    expect(claimed.size).toBe(2);
    const pods = await p().read<bigint>("PodManager", "nextPodId");
    for (const role of ROLE_NAMES) {
      const user = roleAccount(role).address;
      for (let pod = 1n; pod < pods; pod++) {
        for (const epoch of SEEDED_EPOCHS) {
          expect(await pm("hasUserClaimedEmissions", [epoch, pod, user]), `${role} pod ${pod} @${epoch}`).toBe(
            claimed.has(`${user.toLowerCase()}-${pod}-${epoch}`),
          );
        }
      }
    }
  });

  it("getPodUp/DownVotesOfEpoch(epoch, podId) and getVotersUp/DownVotesForPodInEpoch(epoch, podId, voter) equal the seed's votes", async () => {
    // pod 1, epoch 1: up 100 (voter1) + 300 (voter2), down 20 (voter3)
    expect(await pm("getPodUpVotesOfEpoch", [1n, 1n])).toBe(CORE(400));
    expect(await pm("getPodDownVotesOfEpoch", [1n, 1n])).toBe(CORE(20));
    expect(await pm("getVotersUpVotesForPodInEpoch", [1n, 1n, roleAccount("voter2").address])).toBe(CORE(300));
    expect(await pm("getVotersDownVotesForPodInEpoch", [1n, 1n, roleAccount("voter3").address])).toBe(CORE(20));
    // pod 2, epoch 2: up 60 (voter3), down 100 (voter2)
    expect(await pm("getPodUpVotesOfEpoch", [2n, 2n])).toBe(CORE(60));
    expect(await pm("getPodDownVotesOfEpoch", [2n, 2n])).toBe(CORE(100));

    const votes = await events("PodManager", "Voted");
    const sum = (filter: (a: Record<string, unknown>) => boolean) =>
      votes.filter((l) => filter(l.args)).reduce((acc, l) => acc + (l.args.votes as bigint), 0n);
    const pods = await p().read<bigint>("PodManager", "nextPodId");
    for (let pod = 1n; pod < pods; pod++) {
      for (const epoch of SEEDED_EPOCHS) {
        const at = (a: Record<string, unknown>, up: boolean) => a.podId === pod && a.epoch === epoch && a.upVote === up;
        const up = await pm<bigint>("getPodUpVotesOfEpoch", [epoch, pod]);
        const down = await pm<bigint>("getPodDownVotesOfEpoch", [epoch, pod]);
        expect(up, `pod ${pod} @${epoch} up`).toBe(sum((a) => at(a, true)));
        expect(down, `pod ${pod} @${epoch} down`).toBe(sum((a) => at(a, false)));
        expect(up).toBe(await p().read("PodManager", "podUpVotes", [pod, epoch]));
        expect(down).toBe(await p().read("PodManager", "podDownVotes", [pod, epoch]));
        for (const role of ROLE_NAMES) {
          const voter = roleAccount(role).address;
          const mine = (a: Record<string, unknown>, upVote: boolean) =>
            at(a, upVote) && (a.voter as string).toLowerCase() === voter.toLowerCase();
          expect(await pm("getVotersUpVotesForPodInEpoch", [epoch, pod, voter]), `${role} pod ${pod} @${epoch} up`).toBe(
            sum((a) => mine(a, true)),
          );
          expect(await pm("getVotersDownVotesForPodInEpoch", [epoch, pod, voter]), `${role} pod ${pod} @${epoch} down`).toBe(
            sum((a) => mine(a, false)),
          );
        }
      }
    }
  });

  it("getSubnetPrimaryTokenSeedings (PodManager) is what is left of the primary-token emission pool", async () => {
    const subnets = await p().read<bigint>("SubnetManager", "nextSubnetId");
    for (let s = 1n; s < subnets; s++) {
      const [, primaryPool] = await p().read<readonly [bigint, bigint]>("SubnetManager", "emissionPool", [s]);
      expect(await pm("getSubnetPrimaryTokenSeedings", [s]), `datanet ${s}`).toBe(primaryPool);
    }
    // the research datanet was seeded with 8000 of its primary token and has paid some emissions out
    const research = await pm<bigint>("getSubnetPrimaryTokenSeedings", [1n]);
    expect(research).toBeGreaterThan(0n);
    expect(research).toBeLessThan(CORE(8_000));
    expect(await pm("getSubnetPrimaryTokenSeedings", [2n])).toBe(0n);
  });

  it("getAccessFeePrimaryToken, getPublishingFeePrimaryToken and getPrimaryTokenEmissionsPerEpoch (SubnetManager) read the datanet's parameters", async () => {
    // research: access 20, publishing 8, emissions 400 (primary token); datasets: access 5, the rest unset
    expect(await sm("getAccessFeePrimaryToken", [1n])).toBe(CORE(20));
    expect(await sm("getPublishingFeePrimaryToken", [1n])).toBe(CORE(8));
    expect(await sm("getPrimaryTokenEmissionsPerEpoch", [1n])).toBe(CORE(400));
    expect(await sm("getAccessFeePrimaryToken", [2n])).toBe(CORE(5));
    expect(await sm("getPublishingFeePrimaryToken", [2n])).toBe(0n);
    expect(await sm("getPrimaryTokenEmissionsPerEpoch", [2n])).toBe(0n);

    const epoch = await p().read<bigint>("VeCore", "currentEpoch");
    const subnets = await p().read<bigint>("SubnetManager", "nextSubnetId");
    for (let s = 1n; s < subnets; s++) {
      const subnet = await p().read<{ accessFeePrimaryToken: bigint; publishingFeePrimaryToken: bigint; primaryToken: Address }>(
        "SubnetManager",
        "getSubnet",
        [s],
      );
      expect(await sm("getAccessFeePrimaryToken", [s])).toBe(subnet.accessFeePrimaryToken);
      expect(await sm("getPublishingFeePrimaryToken", [s])).toBe(subnet.publishingFeePrimaryToken);
      expect(await sm("getSubnetPrimaryToken", [s])).toBe(subnet.primaryToken);
      const [, primaryRate] = await p().read<readonly [bigint, bigint]>("SubnetManager", "emissionsPerEpochAt", [s, epoch]);
      expect(await sm("getPrimaryTokenEmissionsPerEpoch", [s])).toBe(primaryRate);
    }
  });

  it("the REPPO-named views answer what their CORE-named equivalents answer, on every datanet", async () => {
    const epoch = await p().read<bigint>("VeCore", "currentEpoch");
    const subnets = await p().read<bigint>("SubnetManager", "nextSubnetId");
    let nonZero = 0;
    for (let s = 1n; s < subnets; s++) {
      const accessFee = await p().read<bigint>("SubnetManager", "accessFeeCORE", [s]);
      const publishingFee = await p().read<bigint>("SubnetManager", "publishingFeeCORE", [s]);
      const [coreRate] = await p().read<readonly [bigint, bigint]>("SubnetManager", "emissionsPerEpochAt", [s, epoch]);
      const [corePool] = await p().read<readonly [bigint, bigint]>("SubnetManager", "emissionPool", [s]);
      expect(await sm("getAccessFeeREPPO", [s]), `datanet ${s}`).toBe(accessFee);
      expect(await sm("getPublishingFeeREPPO", [s]), `datanet ${s}`).toBe(publishingFee);
      expect(await sm("getReppoEmissionsPerEpoch", [s]), `datanet ${s}`).toBe(coreRate);
      expect(await pm("getSubnetReppoSeedings", [s]), `datanet ${s}`).toBe(corePool);
      nonZero += [accessFee, publishingFee, coreRate, corePool].filter((v) => v > 0n).length;
    }
    expect(nonZero).toBeGreaterThan(3); // the seed set real values, not only zeros
  });

  it("mintPodWithREPPO and accessSubnetWithREPPOFee do what the CORE-named calls do, with the same events", async () => {
    const user = roleAccount("voter3");
    const subnet = 1n;
    const send = (address: Address, abi: Abi, functionName: string, args: readonly unknown[]) =>
      p().send(user, { address, abi, functionName, args });
    const mintEvents = async (blockHash: `0x${string}`) =>
      (await p().publicClient.getContractEvents({ address: p().address("PodManager"), abi: PodManagerAbi, blockHash } as never)) as unknown as {
        eventName: string;
        args: Record<string, unknown>;
      }[];
    const core = await send(p().address("PodManager"), PodManagerAbi as Abi, "mintPodWithCORE", [user.address, subnet]);
    const reppo = await send(p().address("PodManager"), LIVE_POD_MANAGER, "mintPodWithREPPO", [user.address, subnet]);
    const [a, b] = [await mintEvents(core.blockHash), await mintEvents(reppo.blockHash)];
    expect(b.map((e) => e.eventName)).toEqual(a.map((e) => e.eventName));
    const minted = (list: typeof a) => list.find((e) => e.eventName === "PodMinted")!.args;
    const [first, second] = [minted(a), minted(b)];
    expect(second.podId).toBe((first.podId as bigint) + 1n);
    expect({ ...second, podId: first.podId }).toEqual(first);
    expect(await p().read("PodManager", "ownerOf", [second.podId])).toBe(user.address);

    const stranger: Address = "0x000000000000000000000000000000000000bEEF"; // paid for by the user, as the call allows
    const grantedBefore = await p().read<boolean>("SubnetManager", "hasSubnetAccess", [2n, stranger]);
    expect(grantedBefore).toBe(false);
    const paid = await send(p().address("SubnetManager"), LIVE_SUBNET_MANAGER, "accessSubnetWithREPPOFee", [2n, stranger]);
    const granted = (await p().publicClient.getContractEvents({
      address: p().address("SubnetManager"),
      abi: SubnetManagerAbi,
      eventName: "SubnetAccessGranted",
      blockHash: paid.blockHash,
    } as never)) as unknown as { args: Record<string, unknown> }[];
    expect(granted).toHaveLength(1);
    expect(granted[0]!.args).toMatchObject({ subnetId: 2n, fee: await p().read("SubnetManager", "accessFeeCORE", [2n]) });
    expect((granted[0]!.args.token as string).toLowerCase()).toBe(p().address("CoreToken").toLowerCase());
    expect(await p().read("SubnetManager", "hasSubnetAccess", [2n, stranger])).toBe(true);
  });

  it("lockupData decodes as (amount, expiresAt, unused, votingPower) with unused = 0, matching the lock's events", async () => {
    const staked = await events("VeCore", "Staked");
    const increased = await events("VeCore", "StakeIncreased");
    const extended = await events("VeCore", "LockExtended");
    const locks = await p().read<bigint>("VeCore", "nextLockupId");
    expect(locks - 1n).toBe(4n);
    for (let id = 1n; id < locks; id++) {
      const [amount, expiresAt, unused, votingPower] = await ve<readonly [bigint, bigint, bigint, bigint]>("lockupData", [id]);
      const mine = (list: typeof staked) => list.filter((l) => l.args.lockupId === id);
      const created = mine(staked)[0]!.args;
      const lastIncrease = mine(increased).at(-1)?.args;
      const lastExtension = mine(extended).at(-1)?.args;
      expect(unused, `lock ${id} unused`).toBe(0n);
      expect(amount, `lock ${id} amount`).toBe(lastIncrease?.amount ?? created.amount);
      expect(expiresAt, `lock ${id} expiresAt`).toBe(lastExtension?.expiresAt ?? created.expiresAt);
      // each of these events carries the lock's points after it: the newest one is in force
      const newest = [...mine(staked), ...mine(increased), ...mine(extended)]
        .sort((a, b) => (a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1))
        .at(-1)!;
      expect(votingPower, `lock ${id} votingPower`).toBe(newest.args.votingPower);
    }
    // voter1: 1000 CORE for 365 days plus 200 CORE in the same instant = 600 points
    const [amount, , , votingPower] = await ve<readonly [bigint, bigint, bigint, bigint]>("lockupData", [1n]);
    expect([amount, votingPower]).toEqual([CORE(1200), CORE(600)]);
    expect(await ve("votingPowerOf", [roleAccount("voter1").address])).toBe(votingPower);
  });

  it("a vote over the budget reverts InsufficientVotingPower(), decoded by the live ABI; one at the budget goes through", async () => {
    // pod 4 (voter2's, research datanet) is still valid in the seed's last epoch; voter1 has research access
    const voter = roleAccount("voter1");
    const pod = 4n;
    expect(await p().read("PodManager", "podValid", [pod])).toBe(true);
    const epoch = await p().read<bigint>("VeCore", "currentEpoch");
    const power = await ve<bigint>("votingPowerOf", [voter.address]);
    const left = power - (await p().read<bigint>("PodManager", "votesCastedByVoterForEpoch", [voter.address, epoch]));
    expect(left).toBeGreaterThan(0n);

    const simulate = (votes: bigint) =>
      p().publicClient.simulateContract({
        account: voter,
        address: p().address("PodManager"),
        abi: LIVE_POD_MANAGER,
        functionName: "vote",
        args: [pod, votes, true],
      });
    await expect(simulate(left)).resolves.toBeDefined();

    let error: unknown;
    try {
      await simulate(left + 1n);
    } catch (e) {
      error = e;
    }
    const reverted = error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : undefined;
    expect(reverted).toBeInstanceOf(ContractFunctionRevertedError);
    const data = (reverted as ContractFunctionRevertedError).data;
    expect(data?.errorName).toBe("InsufficientVotingPower");
    expect(data?.args ?? []).toEqual([]);
    // the revert data is the bare selector of InsufficientVotingPower()
    expect((reverted as ContractFunctionRevertedError).raw).toBe(toFunctionSelector("function InsufficientVotingPower()"));
  });
});
