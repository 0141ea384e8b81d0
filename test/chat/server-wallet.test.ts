/** The server wallet's sends: parallel within a process and across replicas, serialized by one PostgreSQL send lock. */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CoreTokenAbi, PodManagerAbi } from "../../abis";
import { loadChatConfig } from "../../api/chat/config";
import { createChatChain } from "../../api/chat/services/chain";
import { createApiChain } from "../../api/deps";
import { createPostgresSendLock } from "../../api/chat/services/send-lock";
import { ContractRevertError } from "../../api/chat/services/server-wallet";
import { roleAccount } from "../../devnet/accounts";
import { startDevnet, type Devnet } from "../support/chain";
import { useFreshDatabase, type FreshDatabase } from "../support/database";
import { protocolOf } from "./support";

let devnet: Devnet;
let database: FreshDatabase;
const pools: pg.Pool[] = [];

beforeAll(async () => {
  [devnet, database] = await Promise.all([startDevnet(), useFreshDatabase()]);
});
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
  await database?.drop();
  await devnet?.chain.stop();
});

function replica() {
  const config = loadChatConfig({}, { protocol: protocolOf(devnet.deployment, devnet.chain.rpcUrl) });
  expect(config.serverWalletIsDevnetDefault).toBe(true);
  // each replica has its own pool, as separate processes would
  const replicaPool = new pg.Pool({ connectionString: database.url, max: 2 });
  pools.push(replicaPool);
  return createChatChain(createApiChain(config.protocol!), config.serverPrivateKey, (wallet) => createPostgresSendLock(replicaPool, wallet));
}

describe("server wallet", () => {
  it("defaults to the devnet's server wallet on a local chain", () => {
    expect(replica().wallet!.address).toBe(roleAccount("serverWallet").address);
  });

  it("sends many transactions in parallel from two replicas with one key, each mined once", async () => {
    const replicas = [replica(), replica()];
    const spender = roleAccount("voter1").address;
    const sends = replicas.flatMap((chain) =>
      Array.from({ length: 8 }, (_, i) =>
        chain.wallet!.send({
          address: chain.addresses.coreToken,
          abi: CoreTokenAbi,
          functionName: "approve",
          args: [spender, BigInt(i + 1)],
        }),
      ),
    );
    const hashes = await Promise.all(sends);
    expect(new Set(hashes).size).toBe(16);
    const receipts = await Promise.all(hashes.map((hash) => replicas[0]!.wallet!.waitForReceipt(hash, 30_000)));
    expect(receipts.every((r) => r?.status === "success")).toBe(true);
    const nonces = await Promise.all(hashes.map(async (hash) => (await devnet.protocol.publicClient.getTransaction({ hash })).nonce));
    expect(new Set(nonces).size).toBe(16);
  });

  it("surfaces a contract's custom error from the simulation, without sending", async () => {
    const chain = replica();
    const nonce = await devnet.protocol.publicClient.getTransactionCount({ address: chain.wallet!.address });
    const error = await chain.wallet!
      .send({ address: chain.addresses.podManager, abi: PodManagerAbi, functionName: "claimPodOwnerEmissions", args: [1n, 1n] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContractRevertError);
    expect((error as ContractRevertError).errorName).toBe("UnknownPod");
    expect(await devnet.protocol.publicClient.getTransactionCount({ address: chain.wallet!.address })).toBe(nonce);
  });
});
