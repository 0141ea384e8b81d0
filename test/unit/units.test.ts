import { describe, expect, it } from "vitest";
import { parseTokenAmount, toTokenNumber, toTokenString } from "../../chain/units";

describe("token units", () => {
  it("parses whole-token JSON numbers exactly, without float arithmetic on wei", () => {
    expect(parseTokenAmount(0.1)).toBe(100_000_000_000_000_000n);
    expect(parseTokenAmount(1.005)).toBe(1_005_000_000_000_000_000n);
    expect(parseTokenAmount(1e-7)).toBe(100_000_000_000n);
    expect(parseTokenAmount(1e21)).toBe(10n ** 39n);
    expect(parseTokenAmount("123.000000000000000001")).toBe(123_000_000_000_000_000_001n);
  });

  it("refuses negatives, non-finite values, junk and more decimals than the token has", () => {
    expect(parseTokenAmount(-1)).toBeUndefined();
    expect(parseTokenAmount(Number.NaN)).toBeUndefined();
    expect(parseTokenAmount(Number.POSITIVE_INFINITY)).toBeUndefined();
    expect(parseTokenAmount("1e5")).toBeUndefined();
    expect(parseTokenAmount("0.0000000000000000001")).toBeUndefined();
    expect(parseTokenAmount("abc")).toBeUndefined();
  });

  it("formats raw amounts as exact decimal strings and as numbers", () => {
    expect(toTokenString(1_500_000_000_000_000_000n)).toBe("1.5");
    expect(toTokenString(1n)).toBe("0.000000000000000001");
    expect(toTokenNumber(250_000_000_000_000_000_000n)).toBe(250);
  });

  it("round-trips a number through raw units", () => {
    for (const n of [0, 1, 0.5, 12.345, 1000.000001]) {
      expect(toTokenNumber(parseTokenAmount(n)!)).toBe(n);
    }
  });
});
