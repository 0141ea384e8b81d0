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
import { encodeFunctionData, parseEther, type Address, type Hex } from "viem";
import { PodManagerAbi, SubnetManagerAbi, VeCoreAbi } from "../abis";
import type { Deployment } from "../chain/deployments";
import { roleAccount, type Role } from "../devnet/accounts";
import { DAY } from "../devnet/deploy";
import { connectProtocol } from "../devnet/protocol";

export type GenerateOptions = {
  /** Approximate number of indexed events to add. */
  events: number;
  /** "dense": txPerBlock transactions a block; "sparse": one vote a block. */
  shape: "dense" | "sparse";
  txPerBlock?: number;
};

export type GeneratedChain = { blocks: number; transactions: number; head: bigint };

const GAS = 600_000n;

type RpcCall = { method: string; params: unknown[] };

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

  const nonces = new Map<Address, number>();
  for (const role of ["voter1", "voter2", "voter3", "curatorA", "buyer", "treasury"] as const) {
    nonces.set(addr(role), await p.publicClient.getTransactionCount({ address: addr(role) }));
  }
  const tx = (role: Role, to: Address, data: Hex): RpcCall => {
    const from = addr(role);
    const nonce = nonces.get(from)!;
    nonces.set(from, nonce + 1);
    return { method: "eth_sendTransaction", params: [{ from, to, data, gas: `0x${GAS.toString(16)}`, nonce: `0x${nonce.toString(16)}` }] };
  };

  const latest = await p.publicClient.getBlock();
  await p.testClient.setAutomine(false);
  await p.testClient.setNextBlockTimestamp({ timestamp: latest.timestamp + 1n });
  await p.testClient.setBlockTimestampInterval({ interval: 0 });

  const voters = ["voter1", "voter2", "voter3"] as const;
  let i = 0; // transaction counter (the mix is a function of it)
  let events = 0;
  let blocks = 0;
  const perBlock = options.shape === "dense" ? (options.txPerBlock ?? 10) : 1;
  const mintedThisBlock: bigint[] = [];
  try {
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
      await rpcBatch(rpcUrl, calls);
      await rpcBatch(rpcUrl, [{ method: "evm_mine", params: [] }]);
      blocks++;
      mintedPods.push(...mintedThisBlock.splice(0));
    }
    await rpcBatch(rpcUrl, [{ method: "anvil_mine", params: ["0x28"] }]);
  } finally {
    await p.testClient.setAutomine(true);
    await p.testClient.removeBlockTimestampInterval();
  }
  // a cheap sanity check: the last block's transactions succeeded
  const head = await p.publicClient.getBlockNumber();
  const last = await p.publicClient.getBlock({ blockNumber: head - 40n, includeTransactions: true });
  for (const t of last.transactions) {
    const receipt = await p.publicClient.getTransactionReceipt({ hash: t.hash });
    if (receipt.status !== "success") throw new Error(`generated transaction reverted: ${t.hash}`);
  }
  return { blocks, transactions: i, head };
}
