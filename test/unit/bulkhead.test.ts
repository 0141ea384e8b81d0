import { describe, expect, it } from "vitest";
import { createBulkhead } from "../../api/lib/bulkhead";

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe("createBulkhead", () => {
  it("runs at most `concurrency` tasks, queues `maxQueued`, refuses the rest at once and frees slots as tasks end", async () => {
    const bulkhead = createBulkhead({ concurrency: 2, maxQueued: 1 });
    const gates = [deferred(), deferred(), deferred()];
    const started: number[] = [];
    const full = () => new Error("full");
    const runs = gates.map((gate, i) =>
      bulkhead.run(async () => {
        started.push(i);
        await gate.promise;
        return i;
      }, full),
    );
    expect({ active: bulkhead.active, queued: bulkhead.queued }).toEqual({ active: 2, queued: 1 });
    await expect(bulkhead.run(async () => "late", full)).rejects.toThrow("full");

    gates[0]!.resolve();
    expect(await runs[0]).toBe(0);
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    gates[1]!.resolve();
    gates[2]!.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2]);
    expect({ active: bulkhead.active, queued: bulkhead.queued }).toEqual({ active: 0, queued: 0 });
    expect(await bulkhead.run(async () => "again", full)).toBe("again");
  });

  it("a failing task frees its slot and its error reaches the caller", async () => {
    const bulkhead = createBulkhead({ concurrency: 1, maxQueued: 0 });
    await expect(bulkhead.run(() => Promise.reject(new Error("boom")), () => new Error("full"))).rejects.toThrow("boom");
    expect(await bulkhead.run(async () => 1, () => new Error("full"))).toBe(1);
  });
});
