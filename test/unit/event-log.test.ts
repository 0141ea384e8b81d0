import { describe, expect, it } from "vitest";
import { parseResume, topicsOf } from "../../api/platform/services/events";
import { comparePositions, eventLogId, parseEventLogId } from "../../src/lib/event-log";

const HASH = "0x3CA427836947A786cfaba9ab406fdae66a2ecd87637430c660836d46ba8a8b29";

describe("event log ids", () => {
  it("name the position and 16 hex digits of the block hash, and parse back", () => {
    const id = eventLogId(73n, 4, HASH);
    expect(id).toBe("73-4-3ca427836947a786");
    expect(parseEventLogId(id)).toEqual({ blockNumber: 73n, logIndex: 4 });
    // the same position in another block is another id
    expect(eventLogId(73n, 4, `0x9${HASH.slice(3)}`)).not.toBe(id);
  });

  it("refuse what is not an id", () => {
    for (const bad of ["", "0", "73-4", "73-4-3ca427836947a78", "73-4-3CA427836947A786", "-1-4-3ca427836947a786", "73-x-3ca427836947a786"]) {
      expect(parseEventLogId(bad), bad).toBeUndefined();
    }
  });

  it("order by block, then log index", () => {
    const positions = [
      { blockNumber: 10n, logIndex: 2 },
      { blockNumber: 9n, logIndex: 7 },
      { blockNumber: 10n, logIndex: 0 },
    ];
    expect([...positions].sort(comparePositions)).toEqual([positions[1], positions[2], positions[0]]);
  });
});

describe("stream parameters", () => {
  it("read Last-Event-ID as now, start, a position, or nothing valid", () => {
    expect(parseResume(undefined)).toEqual({ kind: "now" });
    expect(parseResume("")).toEqual({ kind: "now" });
    expect(parseResume("0")).toEqual({ kind: "start" });
    expect(parseResume("73-4-3ca427836947a786")).toEqual({
      kind: "after",
      id: "73-4-3ca427836947a786",
      position: { blockNumber: 73n, logIndex: 4 },
    });
    expect(parseResume("00")).toBeUndefined();
  });

  it("turn filters into topics, the most selective first", () => {
    expect(topicsOf({ datanet: 2n, wallet: "0xABCdef0000000000000000000000000000000001", pod: 7n })).toEqual([
      "pod:7",
      "wallet:0xabcdef0000000000000000000000000000000001",
      "datanet:2",
    ]);
    expect(topicsOf({})).toEqual([]);
  });
});
