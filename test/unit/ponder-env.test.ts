import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeDeployment, type Deployment } from "../../chain/deployments";
import { isLoopbackUrl, loadPonderEnv, parseRpcUrls, resolveContracts } from "../../ops/ponder-env";

const A = (n: number) => `0x${String(n).repeat(40)}` as `0x${string}`;

const deployment: Deployment = {
  chainId: 8453,
  rpcUrl: "http://127.0.0.1:8545",
  deployedAt: "2026-01-01T00:00:00.000Z",
  contracts: {
    CoreToken: { address: A(1), startBlock: 1 },
    DemoToken: { address: A(2), startBlock: 2 },
    VeCore: { address: A(3), startBlock: 3 },
    SubnetManager: { address: A(4), startBlock: 4 },
    PodManager: { address: A(5), startBlock: 5 },
  },
  parameters: {
    epochLengthSeconds: 172800,
    minStakeDuration: 604800,
    maxStakeDuration: 63072000,
    subnetCreationFee: "100",
    podValidityPeriod: 4,
    performancePool: A(9),
    governanceAccounts: [],
  },
};

/** Temp directories of this file's deployments, removed once its tests are done. */
const tempDirs: string[] = [];
afterAll(() => {
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

function deploymentsFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ponder-env-"));
  tempDirs.push(dir);
  const file = path.join(dir, "deployments.json");
  writeDeployment(deployment, file);
  return file;
}

describe("parseRpcUrls", () => {
  it("expands one loopback URL into lanes with distinct query strings", () => {
    const urls = parseRpcUrls("http://127.0.0.1:8545");
    expect(urls).toHaveLength(6);
    expect(new Set(urls).size).toBe(6);
    expect(urls[0]).toBe("http://127.0.0.1:8545/?lane=1");
    expect(parseRpcUrls("http://localhost:8545/rpc?key=1", 2)).toEqual([
      "http://localhost:8545/rpc?key=1&lane=1",
      "http://localhost:8545/rpc?key=1&lane=2",
    ]);
  });

  it("keeps remote URLs, lists, and a single lane as given", () => {
    expect(parseRpcUrls("https://base.example/v1/key")).toEqual(["https://base.example/v1/key"]);
    expect(parseRpcUrls(" http://127.0.0.1:1 , http://127.0.0.1:2 ")).toEqual(["http://127.0.0.1:1", "http://127.0.0.1:2"]);
    expect(parseRpcUrls("http://127.0.0.1:8545", 1)).toEqual(["http://127.0.0.1:8545"]);
    expect(parseRpcUrls("ws://127.0.0.1:8545")).toEqual(["ws://127.0.0.1:8545"]);
    expect(parseRpcUrls(undefined)).toEqual([]);
    expect(() => parseRpcUrls("not a url")).toThrow(/not a URL/);
  });

  it("recognises loopback hosts", () => {
    expect(isLoopbackUrl("http://localhost:1")).toBe(true);
    expect(isLoopbackUrl("http://127.0.0.2:1")).toBe(true);
    expect(isLoopbackUrl("http://[::1]:1")).toBe(true);
    expect(isLoopbackUrl("https://mainnet.base.org")).toBe(false);
  });
});

describe("resolveContracts", () => {
  it("prefers the environment, then the deployments file", () => {
    const contracts = resolveContracts({ VE_CORE_ADDRESS: A(7) }, deployment);
    // the file's start block belongs to the file's address, not to one from the environment
    expect(contracts.VeCore).toEqual({ address: A(7), startBlock: 0 });
    expect(contracts.PodManager).toEqual({ address: A(5), startBlock: 5 });
    expect(resolveContracts({ START_BLOCK: "42" }, deployment).CoreToken.startBlock).toBe(42);
  });

  it("fails clearly without an address", () => {
    expect(() => resolveContracts({}, undefined)).toThrow(/CORE_TOKEN_ADDRESS/);
    expect(() => resolveContracts({ VE_CORE_ADDRESS: "0x12" }, deployment)).toThrow(/not an address/);
    expect(() => resolveContracts({ START_BLOCK: "-1" }, deployment)).toThrow(/block number/);
  });
});

describe("loadPonderEnv", () => {
  it("reads the deployments file for what the environment lacks", () => {
    const env = loadPonderEnv({ DATABASE_URL: "postgres://x/y", DEPLOYMENTS_FILE: deploymentsFile() });
    expect(env.rpcUrls).toHaveLength(6);
    expect(env.localRpc).toBe(true);
    expect(env.pollingIntervalMs).toBeGreaterThan(0);
    expect(env.contracts.SubnetManager.address).toBe(A(4));
  });

  it("works from the environment alone for a remote RPC", () => {
    const env = loadPonderEnv({
      DATABASE_URL: "postgres://x/y",
      DEPLOYMENTS_FILE: "/nonexistent/deployments.json",
      PONDER_RPC_URL_8453: "https://a.example,https://b.example",
      CORE_TOKEN_ADDRESS: A(1),
      VE_CORE_ADDRESS: A(3),
      SUBNET_MANAGER_ADDRESS: A(4),
      POD_MANAGER_ADDRESS: A(5),
      START_BLOCK: "100",
    });
    expect(env.rpcUrls).toEqual(["https://a.example", "https://b.example"]);
    expect(env.localRpc).toBe(false);
    expect(env.pollingIntervalMs).toBeUndefined();
    expect(env.contracts.PodManager).toEqual({ address: A(5), startBlock: 100 });
  });

  it("PONDER_POLLING_INTERVAL_MS sets the head polling of either kind of chain; a bad value is refused by name", () => {
    const remote = {
      DATABASE_URL: "postgres://x/y",
      DEPLOYMENTS_FILE: "/nonexistent/deployments.json",
      PONDER_RPC_URL_8453: "https://a.example",
      CORE_TOKEN_ADDRESS: A(1),
      VE_CORE_ADDRESS: A(3),
      SUBNET_MANAGER_ADDRESS: A(4),
      POD_MANAGER_ADDRESS: A(5),
      START_BLOCK: "100",
    };
    expect(loadPonderEnv({ ...remote, PONDER_POLLING_INTERVAL_MS: "2000" }).pollingIntervalMs).toBe(2000);
    expect(loadPonderEnv({ DATABASE_URL: "postgres://x/y", DEPLOYMENTS_FILE: deploymentsFile(), PONDER_POLLING_INTERVAL_MS: "500" }).pollingIntervalMs).toBe(500);
    for (const bad of ["abc", "10", "1.5", "100000"]) {
      expect(() => loadPonderEnv({ ...remote, PONDER_POLLING_INTERVAL_MS: bad })).toThrow(/PONDER_POLLING_INTERVAL_MS/);
    }
  });

  it("requires DATABASE_URL and an RPC", () => {
    expect(() => loadPonderEnv({ DEPLOYMENTS_FILE: deploymentsFile() })).toThrow(/DATABASE_URL/);
    expect(() =>
      loadPonderEnv({ DATABASE_URL: "postgres://x/y", DEPLOYMENTS_FILE: "/nonexistent/deployments.json", CORE_TOKEN_ADDRESS: A(1) }),
    ).toThrow(/PONDER_RPC_URL_8453/);
    expect(() => loadPonderEnv({ DATABASE_URL: "postgres://x/y", PONDER_RPC_LANES: "0", DEPLOYMENTS_FILE: deploymentsFile() })).toThrow(
      /PONDER_RPC_LANES/,
    );
  });
});
