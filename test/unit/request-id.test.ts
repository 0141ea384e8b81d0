import { describe, expect, it } from "vitest";
import { requestIdFor } from "../../api/http/request-id";

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("requestIdFor", () => {
  it("echoes a client's id of 1-255 of [A-Za-z0-9_-=]", () => {
    expect(requestIdFor("trace-123")).toBe("trace-123");
    expect(requestIdFor("a".repeat(255))).toBe("a".repeat(255));
  });

  it("makes a new id for a missing, empty, too long or malformed one", () => {
    for (const sent of [undefined, "", "a".repeat(256), "has space", "semi;colon"]) {
      expect(requestIdFor(sent)).toMatch(UUID_SHAPE);
    }
  });

  it("never makes the same id twice in a process", () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => requestIdFor(undefined)));
    expect(ids.size).toBe(10_000);
  });

  it("counts in its last 12 hex digits, across the runs of 4,096 whose first digits are made once", () => {
    const sequence = Array.from({ length: 10_000 }, () => Number.parseInt(requestIdFor(undefined).slice(-12), 16));
    expect(sequence.slice(1).every((n, i) => n === sequence[i]! + 1)).toBe(true);
  });
});
