/**
 * Deterministic chain generator for the indexer benchmarks.
 *
 * Starts from a seeded devnet (`seedDemo`: datanets, pods, locks, access) and adds protocol
 * transactions until the chain holds about `events` indexed events:
 *   - dense: `txPerBlock` transactions a block (default 10), a fixed mix per 20 transactions of
 *     17 votes (on the seeded pods and on pods minted earlier in the run), 1 access purchase
 *     (CORE transfer into the SubnetManager, FeeCollected, SubnetAccessGranted), 1 pod mint
 *     (PodMinted, Transfer, CORE transfer, FeeCollected) and 1 lock (Staked);
 *   - sparse: one vote a block (a quiet chain).
 * Transactions are sent unsigned to anvil's unlocked dev accounts (`eth_sendTransaction` in
 * JSON-RPC batches, explicit nonces and gas) with automine off, then `evm_mine` per block. Block
 * timestamps are frozen (interval 0) so the whole run stays in one epoch and the content depends
 * only on the seed and the parameters. 30+ empty blocks are mined at the end so every generated
 * block is final for Ponder (finality depth 30 on Base).
 */
import { encodeFunctionData, maxUint256, parseEther, type Address, type Hash, type Hex } from "viem";
import { CoreTokenAbi, PodManagerAbi, SubnetManagerAbi, VeCoreAbi } from "../abis";
import type { Deployment } from "../chain/deployments";
import { roleAccount, type Role } from "../devnet/accounts";
import { DAY } from "../devnet/deploy";
import { connectProtocol, type Protocol } from "../devnet/protocol";

export type GenerateOptions = {
  /** Approximate number of indexed events to add. */
  events: number;
  /** "dense": txPerBlock transactions a block; "sparse": one vote a block. */
  shape: "dense" | "sparse";
  txPerBlock?: number;
  /** Unrelated transactions (plain transfers, no logs) added to every block, as on a busy Base block. */
  noisePerBlock?: number;
  /** Empty blocks mined after each generated block: a long chain on which the protocol is quiet, as on Base. */
  gapBlocks?: number;
};

export type GeneratedChain = { blocks: number; transactions: number; head: bigint };

export const GAS = 600_000n;

export type RpcCall = { method: string; params: unknown[] };

async function rpcBatch(rpcUrl: string, calls: RpcCall[]): Promise<unknown[]> {
  const body = calls.map((call, id) => ({ jsonrpc: "2.0", id, ...call }));
  const response = await fetch(rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const results = (await response.json()) as Array<{ id: number; result?: unknown; error?: { message: string } }>;
  const byId = new Map(results.map((r) => [r.id, r]));
  return calls.map((call, id) => {
    const r = byId.get(id);
    if (!r || r.error) throw new Error(`${call.method}: ${r?.error?.message ?? "no response"}`);
    return r.result;
  });
}

/** Unsigned transactions from anvil's unlocked accounts, nonces counted here, one block per `block` call. */
export type BlockSender = {
  tx(from: Address, to: Address, data: Hex): RpcCall;
  /** Sends `calls` in one JSON-RPC batch, then mines them into one block; returns their hashes. */
  block(calls: RpcCall[]): Promise<Hash[]>;
  readonly blocks: number;
  readonly transactions: number;
};

export async function blockSender(rpcUrl: string, p: Protocol, senders: Address[]): Promise<BlockSender> {
  const nonces = new Map<Address, number>();
  for (const from of senders) nonces.set(from, await p.publicClient.getTransactionCount({ address: from }));
  let blocks = 0;
  let transactions = 0;
  return {
    tx(from, to, data) {
      const nonce = nonces.get(from);
      if (nonce === undefined) throw new Error(`${from} is not a sender of this run`);
      nonces.set(from, nonce + 1);
      return { method: "eth_sendTransaction", params: [{ from, to, data, gas: `0x${GAS.toString(16)}`, nonce: `0x${nonce.toString(16)}` }] };
    },
    async block(calls) {
      const hashes = calls.length > 0 ? ((await rpcBatch(rpcUrl, calls)) as Hash[]) : [];
      await rpcBatch(rpcUrl, [{ method: "evm_mine", params: [] }]);
      blocks++;
      transactions += calls.length;
      return hashes;
    },
    get blocks() {
      return blocks;
    },
    get transactions() {
      return transactions;
    },
  };
}

/**
 * Runs `work` with automine off and block time frozen (interval 0), then mines `tailBlocks` (40) empty blocks (every
 * generated block final for Ponder) and checks that the last generated block's transactions succeeded.
 */
async function frozenChain<T>(rpcUrl: string, p: Protocol, work: () => Promise<T>, tailBlocks = 40): Promise<T & { head: bigint }> {
  const latest = await p.publicClient.getBlock();
  await p.testClient.setAutomine(false);
  await p.testClient.setNextBlockTimestamp({ timestamp: latest.timestamp + 1n });
  await p.testClient.setBlockTimestampInterval({ interval: 0 });
  let result: T;
  try {
    result = await work();
    if (tailBlocks > 0) await rpcBatch(rpcUrl, [{ method: "anvil_mine", params: [`0x${tailBlocks.toString(16)}`] }]);
  } finally {
    await p.testClient.setAutomine(true);
    await p.testClient.removeBlockTimestampInterval();
  }
  // a cheap sanity check: the last block's transactions succeeded
  const head = await p.publicClient.getBlockNumber();
  // (the hashes only: a whole block of thousands of transactions can take longer than viem's 10 s on a loaded machine)
  const last = await p.publicClient.getBlock({ blockNumber: head - BigInt(tailBlocks) });
  for (const hash of last.transactions) {
    const receipt = await p.publicClient.getTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new Error(`generated transaction reverted: ${hash}`);
  }
  return { ...result, head };
}

export async function generateChain(rpcUrl: string, deployment: Deployment, options: GenerateOptions): Promise<GeneratedChain> {
  const p = connectProtocol(rpcUrl, deployment);
  // (deriving an account from the mnemonic costs a PBKDF2: once per role)
  const addresses = new Map<Role, Address>();
  const addr = (role: Role) => {
    if (!addresses.has(role)) addresses.set(role, roleAccount(role).address);
    return addresses.get(role)!;
  };
  const CORE = (n: number) => parseEther(String(n));
  const subnetManager = p.address("SubnetManager");
  const podManager = p.address("PodManager");
  const veCore = p.address("VeCore");

  // Enough CORE for every mint, access purchase and lock of the run (the admin mints it).
  const txEstimate = Math.ceil(options.events / (options.shape === "dense" ? 1.25 : 1));
  const budget = CORE(Math.max(100_000, (txEstimate / 20) * 20 + 1_000));
  for (const role of ["curatorA", "buyer", "treasury"] as const) {
    await p.write(roleAccount("deployer"), "CoreToken", "mint", [addr(role), budget]);
  }
  const research = 1n; // seeded datanets: 1 (curatorA), 2 (curatorB); voters 1-3 have access to 1
  const datasets = 2n;
  const seededPods: Record<string, bigint[]> = { voter1: [1n, 4n], voter2: [1n, 2n], voter3: [1n, 2n, 4n] };
  let nextPodId = await p.read<bigint>("PodManager", "nextPodId");
  const mintedPods: bigint[] = []; // minted in earlier blocks: valid vote targets

  const send = await blockSender(
    rpcUrl,
    p,
    (["voter1", "voter2", "voter3", "curatorA", "buyer", "treasury", "deployer"] as const).map(addr),
  );
  const tx = (role: Role, to: Address, data: Hex) => send.tx(addr(role), to, data);

  const voters = ["voter1", "voter2", "voter3"] as const;
  let i = 0; // transaction counter (the mix is a function of it)
  let events = 0;
  const perBlock = options.shape === "dense" ? (options.txPerBlock ?? 10) : 1;
  const mintedThisBlock: bigint[] = [];
  const { head } = await frozenChain(rpcUrl, p, async () => {
    while (events < options.events) {
      const calls: RpcCall[] = [];
      for (let k = 0; k < perBlock && events < options.events; k++, i++) {
        const slot = options.shape === "dense" ? i % 20 : 0;
        if (slot === 5) {
          calls.push(tx("buyer", subnetManager, encodeFunctionData({ abi: SubnetManagerAbi, functionName: "accessSubnetWithCOREFee", args: [datasets, addr("buyer")] })));
          events += 3;
        } else if (slot === 11) {
          calls.push(tx("curatorA", podManager, encodeFunctionData({ abi: PodManagerAbi, functionName: "mintPodWithCORE", args: [addr("curatorA"), research] })));
          mintedThisBlock.push(nextPodId++);
          events += 4;
        } else if (slot === 17) {
          calls.push(tx("treasury", veCore, encodeFunctionData({ abi: VeCoreAbi, functionName: "stake", args: [CORE(1), BigInt(7 * DAY)] })));
          events += 1;
        } else {
          const voter = voters[i % 3]!;
          const own = seededPods[voter]!;
          const targets = mintedPods.length > 0 ? [...own, mintedPods[(i >> 2) % mintedPods.length]!] : own;
          const podId = targets[(i >> 1) % targets.length]!;
          calls.push(tx(voter, podManager, encodeFunctionData({ abi: PodManagerAbi, functionName: "vote", args: [podId, BigInt(1 + (i % 7)), i % 5 !== 0] })));
          events += 1;
        }
      }
      for (let k = 0; k < (options.noisePerBlock ?? 0); k++) calls.push(tx("deployer", addr("treasury"), "0x"));
      await send.block(calls);
      if (options.gapBlocks) await rpcBatch(rpcUrl, [{ method: "anvil_mine", params: [`0x${options.gapBlocks.toString(16)}`] }]);
      mintedPods.push(...mintedThisBlock.splice(0));
    }
    return {};
  });
  return { blocks: send.blocks, transactions: i, head };
}

export type MarketOptions = {
  /** Pods to mint: pod k (from 0) in datanet 1 + k % datanets, owned by owners[⌊k / datanets⌋ % owners]. */
  pods: number;
  /** Votes to cast, in rounds of one vote per pod (the last round may be partial). */
  votes: number;
  /** Datanets to publish, alternately by curatorA and curatorB. */
  datanets: number;
  /**
   * Epochs the vote rounds are spread over, from the minting epoch on; the deployment's
   * podValidityPeriod must be at least this.
   */
  epochs: number;
  /** Pod owners: anvil's unlocked accounts (start anvil with enough of them). */
  owners: Address[];
  /** Voters (not owners: a pod's owner cannot vote on it); each locks CORE and gets access to every datanet. */
  voters: Address[];
  txPerBlock: number;
  /**
   * Empty blocks mined after the market (default 40: every block of it final for Ponder, so a
   * backfill indexes it all); 0 leaves the last 30 blocks to Ponder's live (realtime) sync.
   */
  tailBlocks?: number;
};

export type MarketPod = { index: number; owner: Address; subnetTokenId: number; mintTxHash: Hash };
export type MarketSubnet = { tokenId: number; owner: Role; ownerAddress: Address; publishTxHash: Hash };
export type GeneratedMarket = GeneratedChain & { subnets: MarketSubnet[]; pods: MarketPod[]; votes: number; finalEpoch: number };

/**
 * A market of exactly `pods` pods and `votes` votes on a freshly deployed protocol (no seed), with
 * the transactions each owner would send: for the read-path bench's honest path, whose pods then
 * get their metadata through the API (their mint transactions are returned for that).
 */
export async function generateMarket(rpcUrl: string, deployment: Deployment, options: MarketOptions): Promise<GeneratedMarket> {
  const p = connectProtocol(rpcUrl, deployment);
  const { owners, voters } = options;
  if (owners.some((o) => voters.some((v) => v.toLowerCase() === o.toLowerCase()))) throw new Error("an owner cannot also be a voter");
  const CORE = (n: number) => parseEther(String(n));
  const subnetManager = p.address("SubnetManager");
  const podManager = p.address("PodManager");
  const veCore = p.address("VeCore");
  const core = p.address("CoreToken");
  const curators = (["curatorA", "curatorB"] as const).map((role) => ({ role, address: roleAccount(role).address }));
  const deployer = roleAccount("deployer").address;
  const send = await blockSender(rpcUrl, p, [deployer, ...curators.map((c) => c.address), ...owners, ...voters]);
  const call = (from: Address, to: Address, abi: Parameters<typeof encodeFunctionData>[0]["abi"], functionName: string, args: unknown[]) =>
    send.tx(from, to, encodeFunctionData({ abi, functionName, args } as Parameters<typeof encodeFunctionData>[0]));
  const creationFee = BigInt(deployment.parameters.subnetCreationFee);
  const firstSubnet = Number(await p.read<bigint>("SubnetManager", "nextSubnetId"));
  const firstPod = Number(await p.read<bigint>("PodManager", "nextPodId"));

  const subnets: MarketSubnet[] = [];
  const pods: MarketPod[] = [];
  const result = await frozenChain(rpcUrl, p, async () => {
    // CORE for the datanets' creation fees and the voters' locks, then the approvals
    await send.block([
      ...curators.map((c) => call(deployer, core, CoreTokenAbi, "mint", [c.address, creationFee * BigInt(options.datanets)])),
      ...voters.map((v) => call(deployer, core, CoreTokenAbi, "mint", [v, CORE(1_000)])),
    ]);
    await send.block([
      ...curators.map((c) => call(c.address, core, CoreTokenAbi, "approve", [subnetManager, maxUint256])),
      ...voters.map((v) => call(v, core, CoreTokenAbi, "approve", [veCore, maxUint256])),
    ]);
    await send.block(voters.map((v) => call(v, veCore, VeCoreAbi, "stake", [CORE(1_000), BigInt(365 * DAY)])));
    // one datanet a block: its token id is known
    for (let d = 0; d < options.datanets; d++) {
      const curator = curators[d % curators.length]!;
      const [hash] = await send.block([call(curator.address, subnetManager, SubnetManagerAbi, "publishSubnet", [p.address("DemoToken")])]);
      subnets.push({ tokenId: firstSubnet + d, owner: curator.role, ownerAddress: curator.address, publishTxHash: hash! });
    }
    await send.block(
      voters.flatMap((v) => subnets.map((s) => call(v, subnetManager, SubnetManagerAbi, "accessSubnetWithCOREFee", [BigInt(s.tokenId), v]))),
    );

    for (let k = 0; k < options.pods; k += options.txPerBlock) {
      const batch: MarketPod[] = [];
      const calls: RpcCall[] = [];
      for (let index = k; index < Math.min(options.pods, k + options.txPerBlock); index++) {
        const owner = owners[Math.floor(index / options.datanets) % owners.length]!;
        const subnetTokenId = subnets[index % subnets.length]!.tokenId;
        calls.push(call(owner, podManager, PodManagerAbi, "mintPodWithCORE", [owner, BigInt(subnetTokenId)]));
        batch.push({ index, owner, subnetTokenId, mintTxHash: "0x" });
      }
      const hashes = await send.block(calls);
      for (const [j, pod] of batch.entries()) pods.push({ ...pod, mintTxHash: hashes[j]! });
    }
    // (token ids follow the order of execution inside a block, which anvil does not promise by sender: counted, not assumed)
    const minted = Number(await p.read<bigint>("PodManager", "nextPodId")) - firstPod;
    if (minted !== options.pods) throw new Error(`minted ${minted} pods, expected ${options.pods}`);

    const rounds = Math.ceil(options.votes / Math.max(1, options.pods));
    let epochIndex = 0;
    const pending: RpcCall[] = [];
    for (let j = 0; j < options.votes; j++) {
      const round = Math.floor(j / options.pods);
      const podIndex = j % options.pods;
      const due = Math.floor((round * options.epochs) / rounds);
      if (due > epochIndex) {
        if (pending.length > 0) await send.block(pending.splice(0));
        for (; epochIndex < due; epochIndex++) await p.advanceToNextEpoch();
      }
      const voter = voters[(podIndex + round) % voters.length]!;
      pending.push(call(voter, podManager, PodManagerAbi, "vote", [BigInt(firstPod + podIndex), BigInt(1 + (j % 7)), j % 5 !== 0]));
      if (pending.length >= options.txPerBlock) await send.block(pending.splice(0));
    }
    if (pending.length > 0) await send.block(pending);
    return {};
  }, options.tailBlocks);
  return {
    blocks: send.blocks,
    transactions: send.transactions,
    head: result.head,
    subnets,
    pods,
    votes: options.votes,
    finalEpoch: await p.currentEpoch(),
  };
}
