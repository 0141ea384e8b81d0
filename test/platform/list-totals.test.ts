/**
 * The public list's totals, deep pages and the stats' pod counts (cached per stamp of the listed
 * set: api/platform/repositories/count-cache.ts) agree with SQL over the tables after every kind
 * of change, after a reorg that took back the last list change, and when the views point at
 * another deployment. (Moved from the tests of the per-process pod table, which is gone.)
 */
import { createTestClient, http, type Account, type Hex } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { reconcileOnce } from "../../api/reorgs/reconciler";
import { roleAccount } from "../../devnet/accounts";
import { publishDatanet } from "./agents-harness";
import { BASE, json, podDraftBody, usePlatformHarness, type Session } from "./harness";

describe("the public list's totals and boundaries", () => {
  const h = usePlatformHarness({ indexer: true });
  const curatorA = roleAccount("curatorA");
  const curatorB = roleAccount("curatorB");
  let owner: Session;
  let publisher: Session;
  let research: { id: string; tokenId: bigint };
  let datasets: { id: string; tokenId: bigint };

  const anvil = () => createTestClient({ mode: "anvil", transport: http(h().devnet.chain.rpcUrl) });

  /** A pod minted by curatorB and linked to its draft; `link: false` leaves the draft unlinked. */
  async function mintedPod(name: string, subnet = research, { link = true } = {}) {
    const p = h().devnet.protocol;
    const response = await publisher.post(`${BASE}/me/pods`, podDraftBody(subnet.id, { podName: name }));
    expect(response.status).toBe(201);
    const id = (await json(response)).data.id as string;
    const tokenId = await p.read<bigint>("PodManager", "nextPodId");
    const { transactionHash } = await h().write(curatorB, "PodManager", "mintPodWithCORE", [
      curatorB.address,
      subnet.tokenId,
    ]);
    if (link)
      expect((await publisher.post(`${BASE}/me/pods/${id}/mint`, { podId: id, txHash: transactionHash })).status).toBe(
        200,
      );
    return { id, tokenId, txHash: transactionHash };
  }

  /** The listed pods by SQL over the tables, newest first. */
  async function listedBySql(filter: { subnet?: bigint; epoch?: bigint }): Promise<string[]> {
    const { rows } = await h().store.pool.query<{ id: string }>(
      `SELECT p.id::text AS id FROM offchain.pod_drafts d JOIN chain.pod p ON p.id = d.token_id AND p.mint_tx_hash = d.mint_tx_hash
        WHERE NOT d.banned AND d.archived_at IS NULL
          AND ($1::numeric IS NULL OR p.subnet_id = $1)
          AND ($2::numeric IS NULL OR (p.mint_epoch <= $2 AND p.validity_epoch >= $2 AND (p.invalid_from_epoch IS NULL OR p.invalid_from_epoch > $2)))
        ORDER BY p.id DESC`,
      [filter.subnet?.toString() ?? null, filter.epoch?.toString() ?? null],
    );
    return rows.map((row) => row.id);
  }

  /** Every filter's total and its second page of one (a boundary) from the API equal SQL's; and the stats. */
  async function expectAgreement(step: string) {
    const epoch = BigInt(await h().devnet.protocol.currentEpoch());
    const cases = [
      { query: "", filter: {} },
      { query: `filters[subnet]=${research.id}&`, filter: { subnet: research.tokenId } },
      { query: `filters[subnet]=${datasets.id}&`, filter: { subnet: datasets.tokenId } },
      { query: `filters[currentEpoch]=${epoch}&`, filter: { epoch } },
      {
        query: `filters[subnet]=${research.id}&filters[currentEpoch]=${epoch}&`,
        filter: { subnet: research.tokenId, epoch },
      },
    ];
    for (const { query, filter } of cases) {
      const expected = await listedBySql(filter);
      const body = await json(await h().request(`${BASE}/public/pods?${query}page=2&limit=1`));
      expect(body.data.pagination.total, `${step}: total of ${query || "all"}`).toBe(expected.length);
      const second = (body.data.pods as Array<{ tokenId: string }>).map((pod) => String(pod.tokenId));
      expect(second, `${step}: page 2 of ${query || "all"}`).toEqual(expected.slice(1, 2));
    }
    const stats = await json(await h().request(`${BASE}/stats`));
    const { rows } = await h().store.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM chain.pod");
    expect(stats.data.totalPods, `${step}: stats totalPods`).toBe(rows[0]!.n);
  }

  /** The schema of the indexer's deployment behind the `chain` views, quoted. */
  async function deployedSchema(): Promise<string> {
    const { rows } = await h().store.pool.query<{ schema: string }>(
      "SELECT table_schema AS schema FROM information_schema.view_table_usage WHERE view_schema = 'chain' AND view_name = 'pod'",
    );
    return `"${rows[0]!.schema}"`;
  }

  /** Points chain.pod at `podTable` as Ponder switches views: every view dropped and created again. */
  async function pointViewsAt(deployed: string, podTable: string) {
    await h().store.pool.query(`BEGIN;
      DROP VIEW chain.pod; CREATE VIEW chain.pod AS SELECT * FROM ${podTable};
      DROP VIEW chain._ponder_checkpoint; CREATE VIEW chain._ponder_checkpoint AS SELECT * FROM ${deployed}._ponder_checkpoint;
      COMMIT`);
  }

  beforeAll(async () => {
    owner = await h().signIn("owner", curatorA, "Olivia");
    publisher = await h().signIn("publisher", curatorB, "Paul");
    for (const account of [curatorA, curatorB] as Account[]) await h().fund(account);
    research = await publishDatanet(h(), owner, curatorA, "Research");
    datasets = await publishDatanet(h(), owner, curatorA, "Datasets");
    for (let i = 0; i < 3; i++) await mintedPod(`Research ${i}`);
    await mintedPod("Datasets 0", datasets);
    await h().caughtUp();
  });

  it("agree with SQL after mints, links, bans, archives, republishes, invalidations and deletes", async () => {
    await expectAgreement("start");
    const steps: Array<[string, () => Promise<void>]> = [
      ["a mint and its link", async () => void (await mintedPod("Research 3"))],
      ["a mint not yet linked", async () => void (await mintedPod("Unlinked", research, { link: false }))],
      [
        "a ban",
        async () =>
          void (await h().store.pool.query(
            "UPDATE offchain.pod_drafts SET banned = true, ban_reason = 'test' WHERE pod_name = 'Research 1'",
          )),
      ],
      [
        "an unban",
        async () =>
          void (await h().store.pool.query(
            "UPDATE offchain.pod_drafts SET banned = false, ban_reason = null WHERE pod_name = 'Research 1'",
          )),
      ],
      [
        "an archive",
        async () =>
          void (await h().store.pool.query(
            "UPDATE offchain.pod_drafts SET archived_at = now() WHERE pod_name = 'Research 0'",
          )),
      ],
      [
        "a republish to another datanet",
        async () => {
          const { rows } = await h().store.pool.query<{ token_id: string }>(
            "SELECT token_id::text FROM offchain.pod_drafts WHERE pod_name = 'Research 2'",
          );
          await h().write(curatorB, "PodManager", "republishPod", [BigInt(rows[0]!.token_id), datasets.tokenId]);
        },
      ],
      [
        "an invalidation",
        async () => {
          const { rows } = await h().store.pool.query<{ token_id: string }>(
            "SELECT token_id::text FROM offchain.pod_drafts WHERE pod_name = 'Research 3'",
          );
          await h().write(roleAccount("deployer"), "PodManager", "invalidatePod", [BigInt(rows[0]!.token_id), "spam"]);
        },
      ],
      [
        "a deleted draft",
        async () => void (await h().store.pool.query("DELETE FROM offchain.pod_drafts WHERE pod_name = 'Datasets 0'")),
      ],
    ];
    for (const [step, change] of steps) {
      await change();
      await h().caughtUp();
      await expectAgreement(step);
    }
  });

  it("agree with SQL after a reorg took back the last list change", async () => {
    const snapshot = (await anvil().snapshot()) as Hex;
    await mintedPod("Branch A");
    await h().caughtUp();
    await expectAgreement("branch A");
    const before = (await json(await h().request(`${BASE}/public/pods?limit=1`))).data.pagination.total;

    // branch B (longer) has no list change after the fork: only the check of the last change seen tells
    await anvil().revert({ id: snapshot });
    await anvil().mine({ blocks: 3 });
    await h().caughtUp();
    await expectAgreement("branch B");
    expect((await json(await h().request(`${BASE}/public/pods?limit=1`))).data.pagination.total).toBe(before - 1);

    // the reconciler unlinks the dropped mint's draft (its token id is free for the next mint)
    await reconcileOnce(h().store.db, h().devnet.protocol.publicClient);
    await expectAgreement("reconciled");
  });

  it("agree with SQL when the views point at another deployment (a reindex computing a pod otherwise)", async () => {
    const pool = h().store.pool;
    const deployed = await deployedSchema();
    await expectAgreement("first deployment");
    // the new deployment stands at the same checkpoint and list change, with one pod in another datanet
    const [moved] = await listedBySql({ subnet: research.tokenId });
    await pool.query(`DROP SCHEMA IF EXISTS redeployed CASCADE; CREATE SCHEMA redeployed;
      CREATE TABLE redeployed.pod AS SELECT * FROM ${deployed}.pod;
      UPDATE redeployed.pod SET subnet_id = ${datasets.tokenId} WHERE id = ${moved}`);
    try {
      await pointViewsAt(deployed, "redeployed.pod");
      await expectAgreement("another deployment");
    } finally {
      await pointViewsAt(deployed, `${deployed}.pod`);
      await pool.query("DROP SCHEMA IF EXISTS redeployed CASCADE");
    }
    await expectAgreement("the first deployment again");
  });
});
