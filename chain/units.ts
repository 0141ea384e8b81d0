import { formatUnits, parseUnits } from "viem";

/** CORE and the demo primary token both have 18 decimals. */
export const TOKEN_DECIMALS = 18;

/**
 * Whole-token amount for a JSON number, from raw smallest-unit integers. Goes through the exact
 * decimal string; the final Number() is the only rounding (to the nearest double).
 */
export function toTokenNumber(raw: bigint, decimals = TOKEN_DECIMALS): number {
  return Number(formatUnits(raw, decimals));
}

/** Exact decimal string of a raw amount ("1.5"). */
export function toTokenString(raw: bigint, decimals = TOKEN_DECIMALS): string {
  return formatUnits(raw, decimals);
}

/**
 * Raw integer for a whole-token amount given as a JSON number or decimal string, exactly:
 * the number's shortest decimal representation is parsed, never multiplied as a float.
 * Returns undefined when the value has more decimals than the token or is not a finite, non-negative amount.
 */
export function parseTokenAmount(value: number | string, decimals = TOKEN_DECIMALS): bigint | undefined {
  const text = typeof value === "number" ? numberToPlainDecimal(value) : value.trim();
  if (text === undefined || !/^\d+(\.\d+)?$/.test(text)) return undefined;
  const fraction = text.split(".")[1] ?? "";
  if (fraction.length > decimals) return undefined;
  return parseUnits(text, decimals);
}

/** 1e-7 -> "0.0000001", 1e21 -> "1000000000000000000000"; undefined for NaN, Infinity, negatives. */
function numberToPlainDecimal(n: number): string | undefined {
  if (!Number.isFinite(n) || n < 0) return undefined;
  const text = String(n);
  if (!/e/i.test(text)) return text;
  const [mantissa = "", exponentText = "0"] = text.toLowerCase().split("e");
  const exponent = Number(exponentText);
  const [intPart = "", fracPart = ""] = mantissa.split(".");
  const digits = intPart + fracPart;
  const point = intPart.length + exponent;
  if (point <= 0) return `0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return digits + "0".repeat(point - digits.length);
  return `${digits.slice(0, point)}.${digits.slice(point)}`;
}
