import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../api/config";
import { parseEnv, productionProblems, productionReason } from "../../api/env";

/** Every setting production mode asks for, as an operator would give them. */
const COMPLETE = {
  NODE_ENV: "production",
  DATABASE_URL: "postgres://app@db.internal:5432/datamarket",
  PONDER_URL: "http://indexer.internal:42069",
  IDP_JWKS_URL: "https://id.example.org/.well-known/jwks.json",
  STATS_API_KEYS: "k1,k2",
  EVAL_URL_SIGNING_SECRET: "s".repeat(32),
  EVAL_PUBLIC_URL: "https://eval.example.org/api/v1",
};

describe("production mode", () => {
  it("is on with NODE_ENV=production or a chain that is not on this machine, off on the local devnet", () => {
    expect(productionReason({})).toBeUndefined();
    expect(productionReason({ PONDER_RPC_URL_8453: "http://127.0.0.1:8545" })).toBeUndefined();
    expect(productionReason({ PONDER_RPC_URL_8453: "http://localhost:8545,http://127.0.0.2:8545" })).toBeUndefined();
    expect(productionReason({ NODE_ENV: "production" })).toBe("NODE_ENV=production");
    expect(productionReason({ PONDER_RPC_URL_8453: "https://base-node.internal:8545" })).toMatch(/not a local devnet/);
    // the devnet keeps its zero-configuration start
    expect(() => loadConfig({})).not.toThrow();
  });

  it("refuses every unsafe default in one message naming each missing setting", () => {
    let message = "";
    try {
      loadConfig({ NODE_ENV: "production", HOST: "0.0.0.0" });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^Production mode \(NODE_ENV=production\) refuses local defaults; set: /);
    for (const expected of [
      /DATABASE_URL \(else an embedded PostgreSQL/,
      /PONDER_URL \(else whatever indexer answers on the default/,
      /IDP_JWKS_URL or IDP_PUBLIC_KEY \(else cookies signed by a key generated into \.data\/idp\/local-idp-key\.json are trusted\)/,
      /STATS_API_KEYS or STATS_API_KEYS_FILE \(else a key is generated into \.data\/platform\/stats-api-key/,
      /EVAL_URL_SIGNING_SECRET or EVAL_URL_SIGNING_SECRET_FILE \(else a secret is generated into \.data\/attachments/,
      /EVAL_PUBLIC_URL \(else upload URLs are signed for whatever Host a request names\)/,
      /METRICS_TOKEN or METRICS_TOKEN_FILE \(HOST=0\.0\.0\.0 is not a loopback address\)/,
    ]) {
      expect(message).toMatch(expected);
    }
  });

  it("names each unsafe default alone when it is the only one left", () => {
    const without = (name: keyof typeof COMPLETE) => {
      const { [name]: _dropped, ...rest } = COMPLETE;
      return productionProblems(rest);
    };
    expect(without("DATABASE_URL")).toEqual([expect.stringMatching(/^DATABASE_URL /)]);
    expect(without("PONDER_URL")).toEqual([expect.stringMatching(/^PONDER_URL /)]);
    expect(without("IDP_JWKS_URL")).toEqual([expect.stringMatching(/^IDP_JWKS_URL or IDP_PUBLIC_KEY /)]);
    expect(without("STATS_API_KEYS")).toEqual([expect.stringMatching(/^STATS_API_KEYS /)]);
    expect(without("EVAL_URL_SIGNING_SECRET")).toEqual([expect.stringMatching(/^EVAL_URL_SIGNING_SECRET /)]);
    expect(without("EVAL_PUBLIC_URL")).toEqual([expect.stringMatching(/^EVAL_PUBLIC_URL /)]);
    expect(productionProblems({ ...COMPLETE, HOST: "0.0.0.0" })).toEqual([expect.stringMatching(/^METRICS_TOKEN /)]);
    expect(productionProblems({ ...COMPLETE, HOST: "0.0.0.0", METRICS_TOKEN: "m".repeat(16) })).toEqual([]);
    // webhooks to private addresses are for the devnet and the tests only
    expect(productionProblems({ ...COMPLETE, WEBHOOK_ALLOW_PRIVATE: "true" })).toEqual([expect.stringMatching(/^WEBHOOK_ALLOW_PRIVATE /)]);
    expect(productionProblems({ WEBHOOK_ALLOW_PRIVATE: "true" })).toEqual([]);
    // S3 signs its own URLs: no local secret and no Host involved
    const { EVAL_URL_SIGNING_SECRET: _s, EVAL_PUBLIC_URL: _u, ...s3 } = COMPLETE;
    expect(productionProblems({ ...s3, EVAL_STORAGE: "s3", S3_BUCKET: "b" })).toEqual([]);
    // the launcher gives the API its own indexer's URL
    const { PONDER_URL: _p, ...launcher } = COMPLETE;
    expect(productionProblems(launcher, ["PONDER_URL"])).toEqual([]);
  });

  it("accepts a complete production environment, an external chain implying it", () => {
    expect(productionProblems(COMPLETE)).toEqual([]);
    const { NODE_ENV: _n, ...rest } = COMPLETE;
    expect(productionProblems({ ...rest, PONDER_RPC_URL_8453: "https://base-node.internal:8545" })).toEqual([]);
    expect(productionProblems({ PONDER_RPC_URL_8453: "https://base-node.internal:8545" }).length).toBe(6);
    expect(loadConfig(COMPLETE).ponderUrl).toBe("http://indexer.internal:42069");
  });

  it("reads secrets from files named by NAME_FILE, so replicas share them", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "secret-files-"));
    try {
      fs.writeFileSync(path.join(dir, "stats"), "key-a,key-b\n");
      fs.writeFileSync(path.join(dir, "signing"), `${"x".repeat(40)}\n`);
      const { STATS_API_KEYS: _k, EVAL_URL_SIGNING_SECRET: _s, ...rest } = COMPLETE;
      const env = { ...rest, STATS_API_KEYS_FILE: path.join(dir, "stats"), EVAL_URL_SIGNING_SECRET_FILE: path.join(dir, "signing") };
      expect(productionProblems(env)).toEqual([]);
      expect(parseEnv(env).STATS_API_KEYS).toBe("key-a,key-b");
      expect(parseEnv(env).EVAL_URL_SIGNING_SECRET).toBe("x".repeat(40));
      expect(() => parseEnv({ STATS_API_KEYS_FILE: path.join(dir, "missing") })).toThrow(/STATS_API_KEYS_FILE: cannot read .*ENOENT/);
      expect(() => parseEnv({ STATS_API_KEYS: "a", STATS_API_KEYS_FILE: path.join(dir, "stats") })).toThrow(
        /set STATS_API_KEYS or STATS_API_KEYS_FILE, not both/,
      );
      // a file's value is checked like the variable's own
      fs.writeFileSync(path.join(dir, "short"), "short\n");
      expect(() => parseEnv({ EVAL_URL_SIGNING_SECRET_FILE: path.join(dir, "short") })).toThrow(/EVAL_URL_SIGNING_SECRET: must be at least 32/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
