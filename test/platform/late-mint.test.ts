/**
 * The chat server's mint whose receipt came late (api/chat/routes/pods: `recordServerMint` with no
 * receipt) is stored without a token id; the reconciler's pod-mint re-check must then find the
 * token in the transaction's `PodMinted` and fill it in, not undo a mint the chain confirms. A mint
 * the chain reverted, or a transaction that minted for someone else, is still undone.
 */
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Abi, Hash } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { podDrafts, verifiedTransactions } from "../../api/db/offchain";
import { createRecordVerifiers } from "../../api/ledger/ledger";
import { recordServerMint } from "../../api/platform/services/pod-drafts";
import { reconcileOnce } from "../../api/reorgs/reconciler";
import { roleAccount } from "../../devnet/accounts";
import { usePlatformHarness } from "./harness";

const h = usePlatformHarness();
const serverWallet = roleAccount("serverWallet");
const curator = roleAccount("curatorA");
const minter = roleAccount("voter1");
const otherOwner = roleAccount("voter2");
let subnetTokenId: bigint;

const pass = () =>
  reconcileOnce(h().store.db, h().devnet.protocol.publicClient, { verifiers: createRecordVerifiers(h().store.db, h().runtime) });

/** What the chat handler records when the mint's receipt did not come in time. */
async function recordedWithoutReceipt(txHash: Hash): Promise<string> {
  const { id, tokenId } = await recordServerMint(h().store.db, h().runtime, {
    serverWallet: serverWallet.address,
    wallet: minter.address,
    subnet: { ref: subnetTokenId.toString(), tokenId: subnetTokenId },
    txHash,
    receipt: null,
    body: { podName: `Late ${randomUUID()}`, url: "https://x.com/a/status/1", platform: "x", category: "Research", podDescription: "A post minted by the chat server." },
    slopCheckSkipped: false,
  });
  expect(tokenId).toBeNull();
  return id;
}

const draftOf = async (id: string) => (await h().store.db.select().from(podDrafts).where(eq(podDrafts.id, id)))[0];
const ledgerRowOf = async (txHash: Hash) =>
  (await h().store.db.select().from(verifiedTransactions).where(eq(verifiedTransactions.txHash, txHash.toLowerCase())))[0];

beforeAll(async () => {
  for (const account of [curator, serverWallet]) await h().fund(account);
  const p = h().devnet.protocol;
  subnetTokenId = await p.read<bigint>("SubnetManager", "nextSubnetId");
  await h().write(curator, "SubnetManager", "publishSubnet", [p.address("DemoToken")]);
});

describe("a chat mint recorded before its receipt came", () => {
  it("is kept and given its token id by the re-check when the chain confirms the mint", async () => {
    const p = h().devnet.protocol;
    const tokenId = await p.read<bigint>("PodManager", "nextPodId");
    const mint = await h().write(serverWallet, "PodManager", "mintPodWithCORE", [minter.address, subnetTokenId]);
    const id = await recordedWithoutReceipt(mint.transactionHash);

    const result = await pass();

    expect(result.undone).toEqual([]);
    expect(result.pinned).toBe(1);
    expect(await draftOf(id)).toMatchObject({ tokenId: tokenId.toString(), mintTxHash: mint.transactionHash.toLowerCase() });
    expect(await ledgerRowOf(mint.transactionHash)).toMatchObject({ blockNumber: mint.blockNumber, blockHash: mint.blockHash });
    // the next pass finds nothing to change
    expect((await pass()).undone).toEqual([]);
    expect((await draftOf(id))?.tokenId).toBe(tokenId.toString());
  });

  it("waits while its transaction is not mined yet, then is kept", async () => {
    const p = h().devnet.protocol;
    const tokenId = await p.read<bigint>("PodManager", "nextPodId");
    await p.testClient.setAutomine(false);
    let txHash: Hash;
    try {
      txHash = await p.walletFor(serverWallet).writeContract({
        address: p.address("PodManager"),
        abi: p.abis.PodManager as Abi,
        functionName: "mintPodWithCORE",
        args: [minter.address, subnetTokenId],
        gas: 800_000n,
      } as never);
      const id = await recordedWithoutReceipt(txHash);

      const waiting = await pass();
      expect(waiting.undone).toEqual([]);
      expect(waiting.deferred).toBe(1);
      expect((await draftOf(id))?.mintTxHash).toBe(txHash.toLowerCase());
    } finally {
      await p.testClient.setAutomine(true);
      await p.testClient.mine({ blocks: 1 });
    }
    const mined = await pass();
    expect(mined.undone).toEqual([]);
    expect(mined.pinned).toBe(1);
    expect((await h().store.db.select().from(podDrafts).where(eq(podDrafts.mintTxHash, txHash.toLowerCase())))[0]?.tokenId).toBe(
      tokenId.toString(),
    );
  });

  it("is undone when the chain reverted the mint", async () => {
    const reverted = await h().sendReverted(serverWallet, "PodManager", "mintPodWithCORE", [minter.address, 999_999n]);
    const id = await recordedWithoutReceipt(reverted);

    const result = await pass();

    expect(result.undone).toEqual([expect.objectContaining({ txHash: reverted.toLowerCase(), kind: "pod-mint", reason: "reverted" })]);
    expect(await draftOf(id)).toMatchObject({ tokenId: null, mintTxHash: null });
    expect(await ledgerRowOf(reverted)).toBeUndefined();
  });

  it("is undone when the transaction minted the pod to someone else", async () => {
    const elsewhere = await h().write(serverWallet, "PodManager", "mintPodWithCORE", [otherOwner.address, subnetTokenId]);
    const id = await recordedWithoutReceipt(elsewhere.transactionHash);

    const result = await pass();

    expect(result.undone).toEqual([
      expect.objectContaining({ txHash: elsewhere.transactionHash.toLowerCase(), kind: "pod-mint", reason: "changed" }),
    ]);
    expect(await draftOf(id)).toMatchObject({ tokenId: null, mintTxHash: null });
  });
});
