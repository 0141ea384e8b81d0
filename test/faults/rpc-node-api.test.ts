/**
 * The API's own chain reads and sends through a modelled remote node (bench/rpc-simulator.ts in
 * front of anvil): a rate-limited, timing-out, failing or lagging node makes `verifyTransaction`
 * answer an honest 503 with `Retry-After` or succeed after retrying, never a 400 ("not found") for
 * a transaction that is confirmed; a send whose answer is lost on the way back is settled by its
 * hash, never by a second transaction; the emissions views' contract reads give the chain's values
 * or an honest 503.
 */
import { keccak256, maxUint256, parseEther, toHex, type Hash, type PublicClient } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CoreTokenAbi, SubnetManagerAbi } from "../../abis";
import { createChatChain, type ChatChain } from "../../api/chat/services/chain";
import { createServerWallet } from "../../api/chat/services/server-wallet";
import { chainErrorToHttp, HttpError } from "../../api/http/errors";
import { startRpcSimulator, type RpcSimulator } from "../../bench/rpc-simulator";
import { createChainClient } from "../../chain/client";
import { ChainUnavailableError, TxVerificationError, verifyTransaction } from "../../chain/verify-tx";
import { localRoleKey, roleAccount } from "../../chain/local-accounts";
import { startDevnet, type Devnet } from "../support/chain";

const curator = roleAccount("curatorA");

let devnet: Devnet;
let node: RpcSimulator;

beforeAll(async () => {
  devnet = await startDevnet();
  node = await startRpcSimulator({ upstream: devnet.chain.rpcUrl, seed: 36 });
  const p = devnet.protocol;
  await p.write(roleAccount("deployer"), "CoreToken", "mint", [curator.address, parseEther("100000")]);
  await p.write(curator, "CoreToken", "approve", [p.address("SubnetManager"), maxUint256]);
});

afterAll(async () => {
  await node?.close();
  await devnet?.chain.stop();
});

/** A client of the modelled node, as the API makes it (its receipt wait as on a remote chain unless given). */
const clientOf = (receiptWaitMs = 4_000): PublicClient => createChainClient({ rpcUrl: node.url, local: true, receiptWaitMs });

/** A confirmed datanet publication (sent straight to anvil, as the caller's own wallet would). */
async function published(): Promise<Hash> {
  const p = devnet.protocol;
  return (await p.write(curator, "SubnetManager", "publishSubnet", [p.address("DemoToken")])).transactionHash;
}

const verify = (client: PublicClient, hash: Hash) =>
  verifyTransaction(client, {
    hash,
    from: curator.address,
    contract: { address: devnet.protocol.address("SubnetManager"), name: "SubnetManager" },
    abi: SubnetManagerAbi,
    eventName: "SubnetPublished",
  });

/** What a surface answers for the outcome of `work`: "ok", or the HTTP status and Retry-After of its error. */
async function outcome(work: Promise<unknown>): Promise<{ status: number; retryAfter?: string }> {
  try {
    await work;
    return { status: 200 };
  } catch (error) {
    const http = chainErrorToHttp(error);
    if (!(http instanceof HttpError)) throw error;
    return { status: http.status, retryAfter: http.headers["Retry-After"] };
  }
}

describe("verifyTransaction through a modelled remote node", () => {
  it("a node that rate-limits (429 without and with Retry-After): 200 or 503 with Retry-After, never 400", async () => {
    const hash = await published();
    for (const retryAfterSeconds of [undefined, 1]) {
      node.set({ ...node.profile, requestsPerSecond: 2, rateLimitCountsCalls: true, retryAfterSeconds });
      node.resetStats();
      const results = await Promise.all(Array.from({ length: 8 }, () => outcome(verify(clientOf(0), hash))));
      expect(node.stats.rateLimited).toBeGreaterThan(0);
      for (const result of results) {
        expect([200, 503]).toContain(result.status);
        if (result.status === 503) expect(Number(result.retryAfter)).toBeGreaterThanOrEqual(1);
      }
    }
    node.set({ requestsPerSecond: 0, retryAfterSeconds: undefined, rateLimitCountsCalls: false });
  });

  it("a node that times out or drops every request: 503 with Retry-After, nothing taken for unknown", async () => {
    const hash = await published();
    node.set({ timeoutShare: 1, timeoutHoldMs: 50 });
    try {
      const result = await outcome(verify(clientOf(0), hash));
      expect(result).toEqual({ status: 503, retryAfter: "5" });
      await expect(verify(clientOf(0), hash)).rejects.toBeInstanceOf(ChainUnavailableError);
    } finally {
      node.set({ timeoutShare: 0 });
    }
  });

  it("a node answering 5xx now and then: the transport's retries carry the verification through", async () => {
    const hashes = [await published(), await published(), await published()];
    node.set({ status5xxShare: 0.3 });
    node.resetStats();
    try {
      const results = await Promise.all(hashes.map((hash) => outcome(verify(clientOf(0), hash))));
      expect(node.stats.status5xx).toBeGreaterThan(0);
      for (const result of results) expect([200, 503]).toContain(result.status);
      expect(results.filter((r) => r.status === 200).length).toBeGreaterThan(0);
    } finally {
      node.set({ status5xxShare: 0 });
    }
  });

  it("a provider whose pool has nodes a few blocks behind: the receipt wait finds a just-mined transaction", async () => {
    const hash = await published();
    // its own seed: the draws do not depend on how many requests the tests before made
    node.set({ lagBlocks: 3, lagShare: 0.5, seed: 3 });
    node.resetStats();
    try {
      for (let i = 0; i < 8; i++) await expect(verify(clientOf(), hash)).resolves.toMatchObject({ receipt: { transactionHash: hash } });
      expect(node.stats.lagged).toBeGreaterThan(0);
    } finally {
      node.set({ lagBlocks: 0, lagShare: 1 });
    }
  });

  it("a node 3 blocks behind a moving chain: found within the wait; without a wait it would be a false 400", async () => {
    node.set({ lagBlocks: 3, lagShare: 1 });
    try {
      const early = await published();
      await expect(verify(clientOf(0), early)).rejects.toBeInstanceOf(TxVerificationError);

      const hash = await published();
      // the chain moves on, a block every 300 ms, as Base does every 2 s
      const miner = setInterval(() => void devnet.protocol.testClient.mine({ blocks: 1 }), 300);
      try {
        await expect(verify(clientOf(), hash)).resolves.toMatchObject({ receipt: { transactionHash: hash } });
      } finally {
        clearInterval(miner);
      }
    } finally {
      node.set({ lagBlocks: 0 });
    }
  });

  it("an unknown hash is still refused with 400 once the wait is over", async () => {
    const started = Date.now();
    const result = await outcome(verify(clientOf(300), keccak256(toHex("never sent"))));
    expect(result.status).toBe(400);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });
});

describe("the server wallet through a modelled remote node", () => {
  it("a send whose answer is lost is settled by its hash: exactly one transaction, the nonce advanced once", async () => {
    const key = localRoleKey("serverWallet");
    const address = roleAccount("serverWallet").address;
    const publicClient = clientOf();
    const wallet = createServerWallet({ privateKey: key, rpcUrl: node.url, local: true, publicClient });
    const p = devnet.protocol;
    const before = await p.publicClient.getTransactionCount({ address, blockTag: "pending" });
    node.set({ dropAnswerShare: 1, dropAnswerMethods: ["eth_sendRawTransaction"] });
    node.resetStats();
    let hash: Hash;
    try {
      hash = await wallet.send({ address: p.address("CoreToken"), abi: CoreTokenAbi, functionName: "approve", args: [curator.address, 7n] });
    } finally {
      node.set({ dropAnswerShare: 0 });
    }
    expect(node.stats.answersDropped).toBeGreaterThan(0);
    const receipt = await p.publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    expect(await p.publicClient.getTransactionCount({ address, blockTag: "pending" })).toBe(before + 1);
  });
});

describe("the emissions views' reads through a modelled remote node", () => {
  /** The reads of an emissions check (api/chat/services/emissions.ts) for pod 1, epochs 0-2. */
  const reads = (chain: ChatChain) => [
    chain.currentEpoch(),
    chain.epochLength(),
    ...[0n, 1n, 2n].flatMap((epoch) => [
      chain.podEmissions(1n, epoch),
      chain.podOwnerClaimable(1n, epoch),
      chain.hasPodOwnerClaimed(1n, epoch),
    ]),
  ];
  const chatChainOf = (client: PublicClient) =>
    createChatChain({ protocol: { rpcUrl: node.url, local: true, contracts: devnet.deployment.contracts }, client }, undefined);

  it("a node that rate-limits, fails or drops requests: each read is the chain's value or 503 with Retry-After", async () => {
    const expected = await Promise.all(reads(chatChainOf(devnet.protocol.publicClient as PublicClient)));
    const profiles = [
      { requestsPerSecond: 3, rateLimitCountsCalls: true },
      { requestsPerSecond: 3, rateLimitCountsCalls: true, retryAfterSeconds: 1 },
      { status5xxShare: 0.3 },
      { timeoutShare: 0.3, timeoutHoldMs: 50 },
    ];
    for (const profile of profiles) {
      node.set({ ...profile });
      node.resetStats();
      try {
        const results = await Promise.allSettled(reads(chatChainOf(clientOf(0))));
        expect(node.stats.rateLimited + node.stats.status5xx + node.stats.timeouts).toBeGreaterThan(0);
        results.forEach((result, i) => {
          if (result.status === "fulfilled") expect(result.value).toEqual(expected[i]);
          else {
            expect(result.reason).toBeInstanceOf(HttpError);
            expect((result.reason as HttpError).status).toBe(503);
            expect(Number((result.reason as HttpError).headers["Retry-After"])).toBeGreaterThanOrEqual(1);
          }
        });
      } finally {
        node.set({ requestsPerSecond: 0, retryAfterSeconds: undefined, rateLimitCountsCalls: false, status5xxShare: 0, timeoutShare: 0 });
      }
    }
  });
});
