import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createProgressTracker, describeProgress, parsePrometheusText, type PonderSample } from "../../ops/indexer-progress";
import { RotatingLogFile } from "../../ops/rotating-log";

const sample = (at: number, indexedBlock: number, events: number, rpcErrors = 0): PonderSample => ({
  at,
  indexedBlock,
  syncedBlock: 5_000,
  events,
  rpcErrors,
  realtime: false,
});

describe("indexer progress", () => {
  it("reads Ponder's Prometheus text, labels and all", () => {
    const metrics = parsePrometheusText(
      [
        "# HELP ponder_indexing_completed_events Number of events that have been processed",
        '# TYPE ponder_indexing_completed_events gauge',
        'ponder_indexing_completed_events{chain="base",event="PodManager:Vote"} 12',
        'ponder_indexing_completed_events{chain="base",event="VeCore:Lock"} 30',
        'ponder_sync_block{chain="base"} 4200',
      ].join("\n"),
    );
    expect(metrics.get("ponder_indexing_completed_events")?.map((s) => s.value)).toEqual([12, 30]);
    expect(metrics.get("ponder_sync_block")).toEqual([{ labels: { chain: "base" }, value: 4200 }]);
  });

  it("derives blocks/s, events/s and an ETA from samples over time, and starts over after a restart", () => {
    const tracker = createProgressTracker();
    const first = tracker.update(sample(0, 1_000, 0), 6_000);
    expect(first).toMatchObject({ indexedBlock: 1_000, targetBlock: 6_000, blocksBehind: 5_000, blocksPerSecond: null, etaSeconds: null });
    const second = tracker.update(sample(10_000, 2_000, 500, 2), 6_000);
    expect(second).toMatchObject({ blocksPerSecond: 100, eventsPerSecond: 50, blocksBehind: 4_000, etaSeconds: 40, rpcErrors: 2 });
    expect(describeProgress(second)).toBe("block 2000 of 6000, 100 blocks/s, 50 events/s, ETA 40 s, 2 RPC errors");
    // a restarted indexer counts its events from zero: no negative rate
    const restarted = tracker.update(sample(20_000, 2_100, 10), 6_000);
    expect(restarted.blocksPerSecond).toBeNull();
    // without a chain head, the target is the block Ponder has synced
    expect(tracker.update(sample(30_000, 3_100, 1_010)).targetBlock).toBe(5_000);
  });
});

describe("a rotating log file", () => {
  it("never grows past its cap: the older lines move to <file>.1", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rotating-log-"));
    try {
      const file = path.join(dir, "indexer.log");
      const log = new RotatingLogFile(file, 100);
      for (let i = 0; i < 30; i++) log.write(`line ${String(i).padStart(3, "0")}\n`);
      log.close();
      expect(fs.statSync(file).size).toBeLessThanOrEqual(100);
      expect(fs.statSync(`${file}.1`).size).toBeLessThanOrEqual(100);
      expect(fs.readFileSync(file, "utf8").trim().split("\n").at(-1)).toBe("line 029");
      expect(fs.readdirSync(dir).sort()).toEqual(["indexer.log", "indexer.log.1"]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
