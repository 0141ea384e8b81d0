import { maxUint256, parseEther, type Account, type Address, type Hash } from "viem";
import type { Deployment } from "../chain/deployments";
import { roleAccount, type Role } from "./accounts";
import { DAY } from "./deploy";
import { connectProtocol, type Protocol } from "./protocol";

const CORE = (n: number | string) => parseEther(String(n));

/** A datanet the seed published: what linking it to off-chain metadata needs (`devnet/demo-metadata.ts`). */
export type SeededSubnet = {
  tokenId: number;
  owner: Role;
  ownerAddress: Address;
  /** The datanet's primary token (the demo token). */
  primaryToken: Address;
  /** `publishSubnet`, sent by the owner. */
  publishTxHash: Hash;
};

/** A pod the seed minted, with its mint and republish transactions. */
export type SeededPod = {
  tokenId: number;
  owner: Role;
  ownerAddress: Address;
  /** Who sent the mint: the owner, or the server wallet minting for a user (then only the chat server can link it). */
  sender: Role;
  senderAddress: Address;
  /** The datanet it was minted in. */
  subnetTokenId: number;
  mintedWith: "CORE" | "PrimaryToken";
  mintTxHash: Hash;
  /** `republishPod` transactions, sent by the owner, in order. */
  republishes: { subnetTokenId: number; txHash: Hash }[];
};

export type SeedSummary = {
  subnets: number;
  pods: number;
  locks: number;
  votes: number;
  claims: number;
  finalEpoch: number;
  /** The seeded datanets and pods with their transactions (numbers and strings only: JSON-safe). */
  seeded: {
    primaryToken: { address: Address; symbol: string; decimals: number };
    subnets: SeededSubnet[];
    pods: SeededPod[];
  };
};

/**
 * Demo data that exercises every contract across four epochs: three datanets with fees and
 * emissions, pods minted with CORE and with the primary token (one by the server wallet for a
 * user, one republished into another datanet), locks (one governance), access purchases (one a
 * subscription-package payment for someone else), a boost, up and down votes from several
 * wallets, owner and voter claims (some left unclaimed) and a moderated pod.
 *
 * The result is reproducible: the seed runs on a clock of its own (see `freezeClock`), so two
 * fresh chains seeded this way hold the same state apart from absolute timestamps.
 *
 * The summary lists the seeded datanets and pods with their publish, mint and republish
 * transactions (`seeded`), which `devnet/demo-metadata.ts` links to off-chain metadata.
 */
export async function seedDemo(rpcUrl: string, deployment: Deployment): Promise<SeedSummary> {
  const p = connectProtocol(rpcUrl, deployment);
  await freezeClock(p);
  try {
    return await seedSteps(p);
  } finally {
    await p.testClient.removeBlockTimestampInterval();
  }
}

/**
 * Lock changes (stakeMore, extendLock) earn points over the time left on the lock, so with
 * wall-clock block times the seeded voting powers would depend on how many seconds the seed
 * happened to take. Instead the seed starts at a fixed offset from genesis and every block
 * keeps the previous block's timestamp; only `advanceToNextEpoch` moves time (to an exact
 * epoch end). The interval is removed afterwards, so the chain follows the wall clock again.
 */
async function freezeClock(p: Protocol) {
  const genesis = await p.read<bigint>("VeCore", "genesis");
  const epochLength = await p.read<bigint>("VeCore", "epochLength");
  const latest = (await p.publicClient.getBlock()).timestamp;
  const offset = epochLength / 2n < 60n ? epochLength / 2n : 60n;
  // a seed started long after the deployment cannot go back in time: it starts now instead
  const start = genesis + offset > latest ? genesis + offset : latest;
  await p.testClient.setNextBlockTimestamp({ timestamp: start });
  await p.testClient.setBlockTimestampInterval({ interval: 0 });
}

async function seedSteps(p: Protocol): Promise<SeedSummary> {
  const who = (role: Role) => roleAccount(role);
  const primaryToken = p.address("DemoToken");
  const summary: SeedSummary = {
    subnets: 0,
    pods: 0,
    locks: 0,
    votes: 0,
    claims: 0,
    finalEpoch: 0,
    seeded: {
      primaryToken: {
        address: primaryToken,
        symbol: await p.read<string>("DemoToken", "symbol"),
        decimals: Number(await p.read<number>("DemoToken", "decimals")),
      },
      subnets: [],
      pods: [],
    },
  };
  const publishSubnet = async (owner: Role): Promise<bigint> => {
    const { id, txHash } = await sendPublishSubnet(p, who(owner), primaryToken);
    summary.seeded.subnets.push({
      tokenId: Number(id),
      owner,
      ownerAddress: who(owner).address,
      primaryToken,
      publishTxHash: txHash,
    });
    return id;
  };
  const mintPod = async (sender: Role, owner: Role, subnetId: bigint, token: "CORE" | "PrimaryToken"): Promise<bigint> => {
    const { id, txHash } = await sendMintPod(p, who(sender), who(owner), subnetId, token);
    summary.seeded.pods.push({
      tokenId: Number(id),
      owner,
      ownerAddress: who(owner).address,
      sender,
      senderAddress: who(sender).address,
      subnetTokenId: Number(subnetId),
      mintedWith: token,
      mintTxHash: txHash,
      republishes: [],
    });
    return id;
  };

  await fundAndApprove(p);

  // ---- epoch 1: datanets, locks, access, pods, votes, a boost ----
  const research = await publishSubnet("curatorA");
  const datasets = await publishSubnet("curatorB");
  await publishSubnet("curatorA"); // a third datanet left on its defaults
  summary.subnets = 3;

  await setParams(p, who("curatorA"), research, {
    setAccessFeeCORE: CORE(10),
    setAccessFeePrimaryToken: CORE(20),
    setPublishingFeeCORE: CORE(5),
    setPublishingFeePrimaryToken: CORE(8),
    setRepublishingFeeCORE: CORE(2),
    setEmissionsPerEpochCORE: CORE(1000),
    setEmissionsPerEpochPrimaryToken: CORE(400),
  });
  await p.write(who("curatorA"), "SubnetManager", "seedEmissionPool", [research, CORE(20_000), CORE(8_000)]);
  await setParams(p, who("curatorB"), datasets, {
    setAccessFeeCORE: CORE(15),
    setAccessFeePrimaryToken: CORE(5),
    setPublishingFeeCORE: CORE(4),
    setRepublishingFeeCORE: CORE(1),
    setEmissionsPerEpochCORE: CORE(600),
  });
  await p.write(who("curatorB"), "SubnetManager", "seedEmissionPool", [datasets, CORE(10_000), 0n]);

  const lock1 = await stake(p, who("voter1"), CORE(1000), 365 * DAY);
  await stake(p, who("voter2"), CORE(2000), 730 * DAY);
  const lock3 = await stake(p, who("voter3"), CORE(500), 180 * DAY);
  const treasuryLock = await stake(p, who("treasury"), CORE(5000), 730 * DAY);
  await p.write(who("voter1"), "VeCore", "stakeMore", [lock1, CORE(200)]);
  await p.write(who("voter3"), "VeCore", "extendLock", [lock3, 30 * DAY].map(BigInt));
  summary.locks = 4;

  for (const voter of ["voter1", "voter2", "voter3"] as const) {
    await p.write(who(voter), "SubnetManager", "accessSubnetWithCOREFee", [research, who(voter).address]);
  }
  await p.write(who("voter2"), "SubnetManager", "accessSubnetWithCOREFee", [datasets, who("voter2").address]);
  await p.write(who("voter1"), "SubnetManager", "accessSubnetWithPrimaryTokenFee", [datasets, who("voter1").address]);
  // a subscription package paid by the buyer for voter3
  await p.write(who("buyer"), "SubnetManager", "accessSubnetWithCOREFee", [datasets, who("voter3").address]);

  const pod1 = await mintPod("curatorB", "curatorB", research, "CORE");
  const pod2 = await mintPod("voter1", "voter1", research, "PrimaryToken");
  const pod3 = await mintPod("curatorA", "curatorA", datasets, "CORE");
  const pod4 = await mintPod("serverWallet", "voter2", research, "CORE");
  summary.pods = 4;

  const vote = async (voter: Role, pod: bigint, votes: number, up: boolean) => {
    await p.write(who(voter), "PodManager", "vote", [pod, CORE(votes), up]);
    summary.votes++;
  };
  await vote("voter1", pod1, 100, true);
  await vote("voter2", pod1, 300, true);
  await vote("voter3", pod1, 20, false);
  await vote("voter2", pod2, 150, true);
  await vote("voter3", pod4, 50, true);
  await vote("voter1", pod3, 80, true);
  await p.write(who("buyer"), "SubnetManager", "boost", [research, CORE(250)]);

  // ---- epoch 2: claims for epoch 1, a republish into another datanet, more votes ----
  await p.advanceToNextEpoch();
  await p.write(who("serverWallet"), "PodManager", "claimPodOwnerEmissions", [pod1, 1n]);
  await p.write(who("voter2"), "PodManager", "claimVoterEmissions", [who("voter2").address, pod1, 1n]);
  await p.write(who("serverWallet"), "PodManager", "claimVoterEmissions", [who("voter1").address, pod3, 1n]);
  summary.claims += 3;
  const republished = await p.write(who("curatorB"), "PodManager", "republishPod", [pod1, datasets]);
  summary.seeded.pods
    .find((pod) => pod.tokenId === Number(pod1))!
    .republishes.push({ subnetTokenId: Number(datasets), txHash: republished.transactionHash });
  await vote("voter1", pod1, 200, true);
  await vote("voter2", pod2, 100, false);
  await vote("voter3", pod2, 60, true);
  await vote("voter2", pod3, 100, true);
  await p.write(who("treasury"), "VeCore", "stakeMore", [treasuryLock, CORE(1000)]);

  // ---- epoch 3: claims for epoch 2, votes, moderation ----
  await p.advanceToNextEpoch();
  await p.write(who("curatorB"), "PodManager", "claimPodOwnerEmissions", [pod1, 2n]);
  summary.claims += 1;
  await vote("voter2", pod2, 50, true);
  await vote("voter1", pod4, 100, true);
  await vote("voter3", pod3, 30, true);
  await p.write(who("deployer"), "PodManager", "invalidatePod", [pod3, "flagged after a skipped slop check"]);

  // ---- epoch 4: epoch 3 closed, its emissions left to claim ----
  summary.finalEpoch = await p.advanceToNextEpoch();
  return summary;
}

async function fundAndApprove(p: Protocol) {
  const admin = roleAccount("deployer");
  const holders: Role[] = ["serverWallet", "curatorA", "curatorB", "voter1", "voter2", "voter3", "buyer", "treasury"];
  const spenders = [p.address("SubnetManager"), p.address("PodManager"), p.address("VeCore")];
  for (const role of holders) {
    const account = roleAccount(role);
    await p.write(admin, "CoreToken", "mint", [account.address, CORE(100_000)]);
    await p.write(admin, "DemoToken", "mint", [account.address, CORE(50_000)]);
    for (const spender of spenders) {
      await p.write(account, "CoreToken", "approve", [spender, maxUint256]);
      await p.write(account, "DemoToken", "approve", [spender, maxUint256]);
    }
  }
}

async function sendPublishSubnet(p: Protocol, owner: Account, primaryToken: Address): Promise<{ id: bigint; txHash: Hash }> {
  const id = await p.read<bigint>("SubnetManager", "nextSubnetId");
  const { transactionHash } = await p.write(owner, "SubnetManager", "publishSubnet", [primaryToken]);
  return { id, txHash: transactionHash };
}

async function setParams(p: Protocol, owner: Account, subnetId: bigint, params: Record<string, bigint>) {
  for (const [setter, value] of Object.entries(params)) {
    await p.write(owner, "SubnetManager", setter, [subnetId, value]);
  }
}

async function stake(p: Protocol, owner: Account, amount: bigint, duration: number): Promise<bigint> {
  const id = await p.read<bigint>("VeCore", "nextLockupId");
  await p.write(owner, "VeCore", "stake", [amount, BigInt(duration)]);
  return id;
}

async function sendMintPod(
  p: Protocol,
  payer: Account,
  owner: Account,
  subnetId: bigint,
  token: "CORE" | "PrimaryToken",
): Promise<{ id: bigint; txHash: Hash }> {
  const id = await p.read<bigint>("PodManager", "nextPodId");
  const { transactionHash } = await p.write(payer, "PodManager", `mintPodWith${token}`, [owner.address, subnetId]);
  return { id, txHash: transactionHash };
}
