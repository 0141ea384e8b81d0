import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../api/config";
import { isTokenIdRef, isUuid } from "../../api/db/refs";
import { parseEnv } from "../../api/env";
import { bearerToken } from "../../api/http/auth/bearer";
import { readOrCreateSecretFile } from "../../api/lib/crypto";

describe("the API's environment", () => {
  it("binds the loopback address unless HOST says otherwise, and takes LOG_FORMAT", () => {
    expect(loadConfig({}).host).toBe("127.0.0.1");
    expect(loadConfig({ HOST: "0.0.0.0" }).host).toBe("0.0.0.0");
    expect(loadConfig({ LOG_FORMAT: "json" }).logFormat).toBe("json");
    expect(loadConfig({ LOG_FORMAT: "pretty" }).logFormat).toBe("pretty");
    expect(() => loadConfig({ LOG_FORMAT: "xml" })).toThrow(/LOG_FORMAT/);
  });

  it("is parsed once per environment object and lists every invalid variable", () => {
    const env = { PLATFORM_PORT: "3100" };
    expect(parseEnv(env)).toBe(parseEnv(env));
    expect(() => parseEnv({ PLATFORM_PORT: "x", LOG_LEVEL: "loud" })).toThrow(/PLATFORM_PORT.*LOG_LEVEL/);
    expect(() => parseEnv({ EVAL_STORAGE: "s3" })).toThrow(/S3_BUCKET: required/);
  });
});

describe("shared helpers", () => {
  it("parse a Bearer credential one way", () => {
    expect(bearerToken("Bearer abc")).toBe("abc");
    expect(bearerToken("bearer   abc  ")).toBe("abc");
    expect(bearerToken("Basic abc")).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });

  it("accept token ids of up to 78 digits (a uint256) and uuids", () => {
    expect(isTokenIdRef((2n ** 256n - 1n).toString())).toBe(true);
    expect(isTokenIdRef("1".repeat(79))).toBe(false);
    expect(isTokenIdRef("01")).toBe(false);
    expect(isUuid("123e4567-e89b-12d3-a456-426614174000")).toBe(true);
  });

  it("read a local secret file, creating it once", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "secret-"));
    try {
      const file = path.join(dir, "nested", "key");
      const first = readOrCreateSecretFile(file, () => "s3cret");
      expect(first).toEqual({ value: "s3cret", created: true });
      expect(readOrCreateSecretFile(file, () => "other")).toEqual({ value: "s3cret", created: false });
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
