/**
 * The pods kept in memory for the list's totals and deep pages (api/platform/repositories/
 * listed-pods.ts, pod-table.ts) agree with SQL over the tables after every kind of change, are
 * brought up to date from the changes alone, and are read again whole after a reorg took back
 * the last change they had seen or when the views point at another deployment.
 */
import { createTestClient, http, type Account, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { metricsRegistry } from "../../api/http/metrics";
import { reconcileOnce } from "../../api/reorgs/reconciler";
import { watchListedPodRefreshes, type ListedPodsRefresh } from "../../api/platform/repositories/listed-pods";
import { PodTable, type PodEntry, type PodFilter } from "../../api/platform/repositories/pod-table";
import { roleAccount } from "../../devnet/accounts";
import { publishDatanet } from "./agents-harness";
import { BASE, json, podDraftBody, usePlatformHarness, type Session } from "./harness";

describe("PodTable", () => {
  /** Deterministic pseudo-random integers (a linear congruential generator). */
  function random(seed: number) {
    let state = seed;
    return (below: number) => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state % below;
    };
  }

  const passes = (entry: PodEntry, filter: PodFilter) =>
    (filter.subnetId === undefined || entry.subnetId === filter.subnetId) &&
    (filter.epoch === undefined ||
      (entry.mintEpoch <= filter.epoch &&
        entry.validityEpoch >= filter.epoch &&
        (Number.isNaN(entry.invalidFromEpoch) || entry.invalidFromEpoch > filter.epoch)));

  it("counts and finds page boundaries like a scan of its entries, through inserts, updates and removals", () => {
    const next = random(7);
    const table = new PodTable();
    const entries = new Map<number, PodEntry>();
    const filters: PodFilter[] = [{}, { subnetId: 1 }, { epoch: 3 }, { subnetId: 2, epoch: 5 }, { epoch: 0 }];
    for (let step = 0; step < 3_000; step++) {
      // mostly new pods at the top, as on chain; some in the middle, some changed, some removed
      const id = next(10) < 6 ? Math.max(0, ...entries.keys()) + 1 : next(400) + 1;
      if (next(10) < 2) {
        table.remove(id);
        entries.delete(id);
      } else {
        const mintEpoch = next(6);
        const entry: PodEntry = {
          id,
          subnetId: next(3),
          mintEpoch,
          validityEpoch: mintEpoch + next(5),
          invalidFromEpoch: next(4) === 0 ? mintEpoch + next(3) : Number.NaN,
          listed: next(5) !== 0,
        };
        table.upsert(entry);
        entries.set(id, entry);
      }
      if (step % 100 !== 0) continue;
      const all = [...entries.values()];
      expect(table.podCount).toBe(all.length);
      expect(table.listedCount).toBe(all.filter((e) => e.listed).length);
      for (const filter of filters) {
        expect(table.count(filter, false)).toBe(all.filter((e) => passes(e, filter)).length);
        const listed = all
          .filter((e) => e.listed && passes(e, filter))
          .map((e) => e.id)
          .sort((a, b) => b - a);
        expect(table.count(filter, true)).toBe(listed.length);
        for (const offset of [0, 1, 7, listed.length - 1, listed.length, listed.length + 3]) {
          if (offset < 0) continue;
          expect(table.listedIdAt(filter, offset)).toBe(listed[offset] ?? null);
        }
      }
    }
  });
});

describe("the listed pods kept by the Platform API", () => {
  const h = usePlatformHarness({ indexer: true });
  const curatorA = roleAccount("curatorA");
  const curatorB = roleAccount("curatorB");
  let owner: Session;
  let publisher: Session;
  let research: { id: string; tokenId: bigint };
  let datasets: { id: string; tokenId: bigint };
  const refreshes: ListedPodsRefresh[] = [];
  let stopWatching: () => void;

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

  /** The refreshes `work` caused. */
  async function refreshesOf(work: () => Promise<void>): Promise<ListedPodsRefresh[]> {
    const from = refreshes.length;
    await work();
    return refreshes.slice(from);
  }

  beforeAll(async () => {
    stopWatching = watchListedPodRefreshes((refresh) => refreshes.push(refresh));
    owner = await h().signIn("owner", curatorA, "Olivia");
    publisher = await h().signIn("publisher", curatorB, "Paul");
    for (const account of [curatorA, curatorB] as Account[]) await h().fund(account);
    research = await publishDatanet(h(), owner, curatorA, "Research");
    datasets = await publishDatanet(h(), owner, curatorA, "Datasets");
    for (let i = 0; i < 3; i++) await mintedPod(`Research ${i}`);
    await mintedPod("Datasets 0", datasets);
    await h().caughtUp();
  });

  afterAll(() => stopWatching?.());

  it("agree with SQL after mints, links, bans, archives, republishes, invalidations and deletes, reading only what changed", async () => {
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
      const seen = await refreshesOf(async () => {
        await change();
        await h().caughtUp();
        await expectAgreement(step);
      });
      // the table is read whole once, when first needed; after that only the changes are
      expect(
        seen.filter((refresh) => refresh.kind === "whole"),
        step,
      ).toEqual([]);
    }
    // operators see the same in the metrics
    const metric = await metricsRegistry.getSingleMetric("datamarket_listed_pods_refreshes_total")!.get();
    const changes = metric.values.find((value) => value.labels.kind === "changes")?.value ?? 0;
    expect(changes).toBeGreaterThanOrEqual(steps.length);
  });

  it("reads the table again whole when a reorg took back the last change it had seen", async () => {
    const snapshot = (await anvil().snapshot()) as Hex;
    await mintedPod("Branch A");
    await h().caughtUp();
    await expectAgreement("branch A");
    const before = (await json(await h().request(`${BASE}/public/pods?limit=1`))).data.pagination.total;

    // branch B (longer) has no list change after the fork: only the check of the last change seen tells
    await anvil().revert({ id: snapshot });
    await anvil().mine({ blocks: 3 });
    const seen = await refreshesOf(async () => {
      await h().caughtUp();
      await expectAgreement("branch B");
    });
    expect(seen.map((refresh) => refresh.kind)).toContain("whole");
    expect((await json(await h().request(`${BASE}/public/pods?limit=1`))).data.pagination.total).toBe(before - 1);

    // the reconciler unlinks the dropped mint's draft (its token id is free for the next mint)
    await reconcileOnce(h().store.db, h().devnet.protocol.publicClient);
    await expectAgreement("reconciled");
  });

  it("reads the table again whole when the views point at another deployment (a reindex computing a pod otherwise)", async () => {
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
      const seen = await refreshesOf(() => expectAgreement("another deployment"));
      expect(seen.map((refresh) => refresh.kind)).toContain("whole");
    } finally {
      await pointViewsAt(deployed, `${deployed}.pod`);
      await pool.query("DROP SCHEMA IF EXISTS redeployed CASCADE");
    }
    await expectAgreement("the first deployment again");
  });

  it("gives the table up for a pod id past 2^53 until the views point at another deployment", async () => {
    const pool = h().store.pool;
    const deployed = await deployedSchema();
    await expectAgreement("before");
    await pool.query(`DROP SCHEMA IF EXISTS redeployed CASCADE; CREATE SCHEMA redeployed;
      CREATE TABLE redeployed.pod AS SELECT * FROM ${deployed}.pod;
      CREATE TEMP TABLE huge AS SELECT * FROM ${deployed}.pod ORDER BY id LIMIT 1;
      UPDATE huge SET id = 9007199254740993; INSERT INTO redeployed.pod SELECT * FROM huge; DROP TABLE huge`);
    try {
      await pointViewsAt(deployed, "redeployed.pod");
      const given = await refreshesOf(() => expectAgreement("a pod past 2^53"));
      expect(given).toEqual([]);
      // a change of the list (a ban) in the same deployment: still counted in SQL
      await pool.query(
        "UPDATE offchain.pod_drafts SET banned = true, ban_reason = 'spam' WHERE pod_name = 'Datasets 0'",
      );
      expect(await refreshesOf(() => expectAgreement("still given up"))).toEqual([]);
      await pool.query(
        "UPDATE offchain.pod_drafts SET banned = false, ban_reason = NULL WHERE pod_name = 'Datasets 0'",
      );
    } finally {
      await pointViewsAt(deployed, `${deployed}.pod`);
      await pool.query("DROP SCHEMA IF EXISTS redeployed CASCADE");
    }
    const seen = await refreshesOf(() => expectAgreement("the first deployment again"));
    expect(seen.map((refresh) => refresh.kind)).toEqual(["whole"]);
  });

  it("serves from SQL while a view is missing mid-refresh, and keeps the table again from the next change", async () => {
    const pool = h().store.pool;
    const deployed = await deployedSchema();
    await expectAgreement("before");
    await mintedPod("While the indexer switches views");
    await h().caughtUp();
    // the list's stamp reads pod_list_change and pod; an incremental refresh also reads event_log
    await pool.query("DROP VIEW chain.event_log");
    try {
      const total = (await json(await h().request(`${BASE}/public/pods?limit=1`))).data.pagination.total;
      expect(total).toBe((await listedBySql({})).length);
    } finally {
      await pool.query(`CREATE VIEW chain.event_log AS SELECT * FROM ${deployed}.event_log`);
    }
    await mintedPod("After the switch");
    await h().caughtUp();
    const seen = await refreshesOf(() => expectAgreement("after the switch"));
    expect(seen.map((refresh) => refresh.kind)).toEqual(["changes"]);
  });

  it("sees a listing write whose transaction began before a refresh and committed after it", async () => {
    await expectAgreement("before");
    const client = await h().store.pool.connect();
    try {
      await client.query("BEGIN");
      await client.query(
        "UPDATE offchain.pod_drafts SET banned = true, ban_reason = 'slow' WHERE pod_name = 'Research 1'",
      );
      // another change commits and is read meanwhile: the refresh's snapshot has the ban in progress
      await mintedPod("Meanwhile");
      await h().caughtUp();
      await expectAgreement("meanwhile");
      await client.query("COMMIT");
    } finally {
      client.release();
    }
    const seen = await refreshesOf(() => expectAgreement("after the commit"));
    // the ban's pod, and the last mint's again (its block is read again inclusively)
    expect(seen.map((refresh) => refresh.kind)).toEqual(["changes"]);
  });
});
