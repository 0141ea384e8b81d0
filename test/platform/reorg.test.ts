/**
 * Off-chain records follow the canonical chain (api/reorgs): a recorded mint whose block a reorg
 * drops is undone, the public API stops showing its metadata on the token, and the owner can
 * record what the chain says now, including the identical signed transaction mined again.
 */
import { createTestClient, http, type Account, type Hex } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { reconcileOnce, listReorgedRecords } from "../../api/reorgs/reconciler";
import { roleAccount } from "../../devnet/accounts";
import { publishDatanet } from "./agents-harness";
import { BASE, json, podDraftBody, usePlatformHarness, type Session } from "./harness";

const h = usePlatformHarness({ indexer: true });
const curatorA = roleAccount("curatorA");
const curatorB = roleAccount("curatorB");
let owner: Session;
let publisher: Session;
let research: { id: string; tokenId: bigint };

const anvil = () => createTestClient({ mode: "anvil", transport: http(h().devnet.chain.rpcUrl) });

async function draft(session: Session, name: string): Promise<string> {
  const response = await session.post(`${BASE}/me/pods`, podDraftBody(research.id, { podName: name }));
  expect(response.status).toBe(201);
  return (await json(response)).data.id;
}

/** A signed mint of `account`, sent raw: the same bytes can be sent again after a revert. */
const signedMint = (account: Account): Promise<Hex> =>
  h().signed(account, "PodManager", "mintPodWithCORE", [account.address, research.tokenId]);
const sendRaw = (raw: Hex) => h().sendRaw(raw);

beforeAll(async () => {
  owner = await h().signIn("owner", curatorA, "Olivia");
  publisher = await h().signIn("publisher", curatorB, "Paul");
  for (const account of [curatorA, curatorB]) await h().fund(account);
  research = await publishDatanet(h(), owner, curatorA, "Research");
  await h().caughtUp();
});

describe("a reorg drops a recorded mint", () => {
  it("undoes the record, hides its metadata, frees the hash for the owner's re-mined transaction", async () => {
    const p = h().devnet.protocol;
    const podId = await draft(publisher, "Branch A pod");
    const tokenId = await p.read<bigint>("PodManager", "nextPodId");
    const snapshot = (await anvil().snapshot()) as Hex;

    // branch A: curatorB mints and records it
    const raw = await signedMint(curatorB);
    const minted = await sendRaw(raw);
    expect((await publisher.post(`${BASE}/me/pods/${podId}/mint`, { podId, txHash: minted.transactionHash })).status).toBe(200);
    await h().caughtUp();
    expect((await h().request(`${BASE}/public/pods/${tokenId}`)).status).toBe(200);

    // branch B (longer): the mint is gone; curatorA mints the same token id
    await anvil().revert({ id: snapshot });
    const other = await h().write(curatorA, "PodManager", "mintPodWithCORE", [curatorA.address, research.tokenId]);
    await anvil().mine({ blocks: 3 });
    await h().caughtUp();

    // before any reconciler pass: the stale link never joins the token it no longer names
    expect((await h().request(`${BASE}/public/pods/${tokenId}`)).status).toBe(404);
    expect((await h().request(`${BASE}/public/pods/${podId}`)).status).toBe(404);

    const result = await reconcileOnce(h().store.db, p.publicClient);
    expect(result.undone).toEqual([{ txHash: minted.transactionHash, kind: "pod-mint", recordId: podId, reason: "dropped" }]);
    expect((await listReorgedRecords(h().store.db))[0]).toMatchObject({ txHash: minted.transactionHash, kind: "pod-mint" });

    // nothing shows curatorB's metadata on curatorA's token; the draft is a draft again
    expect((await h().request(`${BASE}/public/pods/${tokenId}`)).status).toBe(404);
    expect((await h().request(`${BASE}/public/pods/${podId}`)).status).toBe(404);
    const mine = (await json(await publisher.get(`${BASE}/me/pods/${podId}`))).data.pod;
    expect(mine).toMatchObject({ id: podId, tokenId: null, status: "draft" });

    // the owner of the new token can record it; the identical signed mint, sent again, records again
    const ownerPod = await draft(owner, "Branch B pod");
    expect((await owner.post(`${BASE}/me/pods/${ownerPod}/mint`, { podId: ownerPod, txHash: other.transactionHash })).status).toBe(200);
    const again = await sendRaw(raw);
    expect(again.transactionHash).toBe(minted.transactionHash);
    await h().caughtUp();
    expect((await publisher.post(`${BASE}/me/pods/${podId}/mint`, { podId, txHash: again.transactionHash })).status).toBe(200);

    // a later pass confirms what is canonical and undoes nothing more
    expect((await reconcileOnce(h().store.db, p.publicClient)).undone).toEqual([]);
  });
});
