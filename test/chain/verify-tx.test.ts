import { describe, expect, it, vi } from "vitest";
import { keccak256, maxUint256, parseEther, toHex, type Hash } from "viem";
import { PodManagerAbi, SubnetManagerAbi } from "../../abis";
import { TxVerificationError, verifyTransaction } from "../../chain/verify-tx";
import { roleAccount } from "../../devnet/accounts";
import { useDevnet } from "../support/chain";

const curator = roleAccount("curatorA");
const stranger = roleAccount("voter3");

describe("verifyTransaction", () => {
  const devnet = useDevnet();

  async function publish(): Promise<Hash> {
    const p = devnet().protocol;
    await p.write(roleAccount("deployer"), "CoreToken", "mint", [curator.address, parseEther("1000")]);
    await p.write(curator, "CoreToken", "approve", [p.address("SubnetManager"), maxUint256]);
    const receipt = await p.write(curator, "SubnetManager", "publishSubnet", [p.address("DemoToken")]);
    return receipt.transactionHash;
  }

  const expectPublish = (hash: Hash, overrides: Record<string, unknown> = {}) => {
    const p = devnet().protocol;
    return verifyTransaction(p.publicClient, {
      hash,
      from: curator.address,
      contract: { address: p.address("SubnetManager"), name: "SubnetManager" },
      abi: SubnetManagerAbi,
      eventName: "SubnetPublished",
      ...overrides,
    });
  };

  it("accepts a successful transaction from the caller with the expected event and returns it decoded", async () => {
    const hash = await publish();
    const { event, receipt } = await expectPublish(hash);
    expect(receipt.status).toBe("success");
    expect(event.args.owner).toBe(curator.address);
    expect(event.args.primaryToken).toBe(devnet().protocol.address("DemoToken"));
  });

  it("rejects an unknown hash", async () => {
    await expect(expectPublish(keccak256(toHex("nothing")))).rejects.toThrow(/not found/);
  });

  it("rejects a transaction sent by another wallet", async () => {
    const hash = await publish();
    await expect(expectPublish(hash, { from: stranger.address })).rejects.toThrow(/not sent by the caller/);
  });

  it("rejects a transaction to another contract", async () => {
    const p = devnet().protocol;
    const receipt = await p.write(curator, "CoreToken", "approve", [p.address("PodManager"), 1n]);
    await expect(expectPublish(receipt.transactionHash)).rejects.toThrow(/not a call to SubnetManager/);
  });

  it("rejects a transaction of another kind on the same contract", async () => {
    const p = devnet().protocol;
    await publish();
    const receipt = await p.write(curator, "SubnetManager", "setAccessFeeCORE", [1n, 5n]);
    await expect(expectPublish(receipt.transactionHash)).rejects.toThrow(/no SubnetPublished event/);
  });

  it("rejects an event whose values differ from the claim", async () => {
    const hash = await publish();
    await expect(
      expectPublish(hash, { matches: () => false, describe: "the draft's token" }),
    ).rejects.toThrow(/does not match the draft's token/);
  });

  it("rejects a reverted transaction", async () => {
    const p = devnet().protocol;
    const wallet = p.walletFor(stranger);
    const hash = await wallet.writeContract({
      address: p.address("PodManager"),
      abi: PodManagerAbi,
      functionName: "vote",
      args: [999n, 1n, true],
      gas: 300_000n,
    });
    await p.publicClient.waitForTransactionReceipt({ hash });
    const verifying = verifyTransaction(p.publicClient, {
      hash,
      from: stranger.address,
      contract: { address: p.address("PodManager"), name: "PodManager" },
      abi: PodManagerAbi,
      eventName: "Voted",
    });
    await expect(verifying).rejects.toBeInstanceOf(TxVerificationError);
    await expect(verifying).rejects.toThrow(/reverted/);
  });

  it("requires the configured number of confirmations", async () => {
    const hash = await publish();
    await expect(expectPublish(hash, { minConfirmations: 3 })).rejects.toThrow(/1 of 3 confirmations/);
    await devnet().protocol.testClient.mine({ blocks: 2 });
    await expect(expectPublish(hash, { minConfirmations: 3 })).resolves.toBeTruthy();
  });

  it("checks a receipt the caller already fetched without asking the RPC for it again", async () => {
    const hash = await publish();
    const other = await publish();
    const client = devnet().protocol.publicClient;
    const receipt = await client.getTransactionReceipt({ hash });
    const asked = vi.spyOn(client, "getTransactionReceipt");
    try {
      const verified = await expectPublish(hash, { receipt });
      expect(verified.receipt).toBe(receipt);
      expect(asked).not.toHaveBeenCalled();
      // the known receipt is checked like a fetched one
      await expect(expectPublish(hash, { receipt, from: stranger.address })).rejects.toThrow(/not sent by the caller/);
      expect(asked).not.toHaveBeenCalled();
      // a receipt of another transaction is not taken for this one's
      const fetched = await expectPublish(other, { receipt });
      expect(fetched.receipt.transactionHash).toBe(other);
      expect(asked).toHaveBeenCalledTimes(1);
    } finally {
      asked.mockRestore();
    }
  });
});
