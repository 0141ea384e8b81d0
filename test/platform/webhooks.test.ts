/**
 * Webhooks through the real platform app, the indexer, anvil and PostgreSQL: subscribing (and its
 * refusals), ordered signed deliveries to a local receiver whose ids and bodies are the event
 * stream's, retries through a failing and a closed receiver, a worker stopped mid-way and another
 * going on from the stored cursor, two workers on one database, a reorg's retraction, pausing and
 * resuming, and the address check at delivery time.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createHmac, randomUUID } from "node:crypto";
import { createTestClient, http as viemHttp, parseEther, type Hex } from "viem";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Database } from "../../api/db/client";
import { createLogger } from "../../api/http/logger";
import { isPublicAddress } from "../../api/lib/public-address";
import { createPlatformApp } from "../../api/platform/app";
import type { WebhookConfig } from "../../api/platform/config";
import { claimDueWebhook } from "../../api/platform/repositories/webhooks";
import { pauseReason, retryDelayMs, WebhookWorker } from "../../api/platform/services/webhook-worker";
import { roleAccount, type Role } from "../../devnet/accounts";
import { DAY } from "../../devnet/deploy";
import { eventually, registerAgent, type Agent } from "./agents-harness";
import { BASE, json, usePlatformHarness } from "./harness";

const h = usePlatformHarness({
  indexer: true,
  platformEnv: {
    EVENTS_POLL_INTERVAL_MS: "100",
    EVENTS_KEEPALIVE_SECONDS: "1",
    WEBHOOK_ALLOW_PRIVATE: "true",
    WEBHOOK_POLL_INTERVAL_MS: "50",
    WEBHOOK_TIMEOUT_MS: "2000",
    WEBHOOK_RETRY_BASE_MS: "20",
    WEBHOOK_RETRY_MAX_DELAY_MS: "200",
    WEBHOOK_MAX_FAILURES: "10000",
  },
});
const who = (role: Role) => roleAccount(role);
const CORE = (n: string) => parseEther(n);
const anvil = () => createTestClient({ mode: "anvil", transport: viemHttp(h().devnet.chain.rpcUrl) });
const config = (): WebhookConfig => h().runtime.config.webhooks;
const silent = createLogger("silent");

type Hit = {
  id: string;
  event: string;
  subscription: string;
  timestamp: string;
  signature: string;
  body: string;
  status: number | "cut";
};

/** A local webhook receiver: records every request; `answer` decides each status (or to hang). */
class Receiver {
  readonly hits: Hit[] = [];
  answer: (hit: Hit) => number | "hang" = () => 200;
  /** Milliseconds before answering (so that deliveries overlap if anything let them). */
  delayMs = 0;
  private inFlight = new Map<string, number>();
  /** Most requests of one subscription in flight at once. */
  maxInFlight = 0;
  private server: http.Server | undefined;
  port = 0;

  async start(): Promise<void> {
    const server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const hit: Hit = {
          id: String(request.headers["x-webhook-id"]),
          event: String(request.headers["x-webhook-event"]),
          subscription: String(request.headers["x-webhook-subscription"]),
          timestamp: String(request.headers["x-webhook-timestamp"]),
          signature: String(request.headers["x-webhook-signature"]),
          body: Buffer.concat(chunks).toString("utf8"),
          status: "cut",
        };
        this.hits.push(hit);
        const open = (this.inFlight.get(hit.subscription) ?? 0) + 1;
        this.inFlight.set(hit.subscription, open);
        this.maxInFlight = Math.max(this.maxInFlight, open);
        let closed = false;
        response.on("close", () => {
          closed = true;
          this.inFlight.set(hit.subscription, (this.inFlight.get(hit.subscription) ?? 1) - 1);
        });
        const status = this.answer(hit);
        if (status === "hang") return;
        setTimeout(() => {
          // the worker gave up on this request (it was stopped): the answer never reaches it
          if (closed) return;
          hit.status = status;
          response.writeHead(status).end("ok");
        }, this.delayMs);
      });
    });
    await new Promise<void>((resolve) => server.listen(this.port, "127.0.0.1", resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Closes the receiver and every connection (the worker sees it down). */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  /** The ids acknowledged (2xx), in order, for one subscription. */
  acked(subscription: string): string[] {
    return this.hits.filter((hit) => hit.subscription === subscription && hit.status === 200).map((hit) => hit.id);
  }

  of(subscription: string): Hit[] {
    return this.hits.filter((hit) => hit.subscription === subscription);
  }
}

const receivers: Receiver[] = [];
const workers: WebhookWorker[] = [];
const stores: Database[] = [];

async function receiver(): Promise<Receiver> {
  const r = new Receiver();
  await r.start();
  receivers.push(r);
  return r;
}

/** A worker as another API process would run it: its own connection pool on the same database. */
function worker(overrides: Partial<WebhookConfig> = {}, { ownPool = false } = {}): WebhookWorker {
  let db = h().store.db;
  if (ownPool) {
    const store = createDb(h().database.url, { chainSchemaName: "chain", maxConnections: 4 });
    stores.push(store);
    db = store.db;
  }
  const w = new WebhookWorker({ db, viewsSchema: "chain", config: { ...config(), ...overrides }, logger: silent });
  workers.push(w);
  w.start();
  return w;
}

afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
  await Promise.all(receivers.splice(0).map((r) => r.stop()));
  await Promise.all(stores.splice(0).map((s) => s.pool.end()));
  await h().store.pool.query("DELETE FROM offchain.webhook_subscriptions");
});

/** The event stream's messages (GET /events) from `0`: read until it idles (a keep-alive). */
async function sseEvents(query = ""): Promise<Array<{ id: string; event: string; data: string }>> {
  const response = await h().request(`${BASE}/events${query}`, { headers: { "Last-Event-ID": "0" } });
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes(": keep-alive")) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  const messages: Array<{ id: string; event: string; data: string }> = [];
  for (const block of text.split("\n\n")) {
    const field = (name: string) => block.split("\n").find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2);
    const event = field("event");
    if (event) messages.push({ event, id: field("id")!, data: field("data")! });
  }
  return messages;
}

async function subscribe(agent: Agent, body: Record<string, unknown>) {
  const response = await agent.request(`${BASE}/webhooks`, { body });
  expect(response.status).toBe(201);
  return (await json(response)).data as { id: string; secret: string; [key: string]: unknown };
}

async function status(agent: Agent, id: string) {
  const response = await agent.request(`${BASE}/webhooks/${id}`);
  expect(response.status).toBe(200);
  return (await json(response)).data;
}

const verify = (secret: string, hit: Hit) =>
  hit.signature === `sha256=${createHmac("sha256", secret).update(`${hit.timestamp}.${hit.body}`).digest("hex")}`;

let alice: Agent;
let bob: Agent;

beforeAll(async () => {
  for (const role of ["curatorA", "voter1", "voter2"] as const) await h().fund(who(role));
  const write = (role: Role, contract: "SubnetManager" | "PodManager" | "VeCore", fn: string, args: unknown[]) =>
    h().write(who(role), contract, fn, args);
  const p = h().devnet.protocol;
  await write("curatorA", "SubnetManager", "publishSubnet", [p.address("DemoToken")]); // datanet 1
  for (const voter of ["voter1", "voter2"] as const) {
    await write(voter, "VeCore", "stake", [CORE("1000"), BigInt(365 * DAY)]);
    await write(voter, "SubnetManager", "accessSubnetWithCOREFee", [1n, who(voter).address]);
  }
  await write("curatorA", "PodManager", "mintPodWithCORE", [who("curatorA").address, 1n]); // pod 1
  await write("voter1", "PodManager", "mintPodWithCORE", [who("voter1").address, 1n]); // pod 2
  for (let i = 0; i < 4; i++) {
    await write("voter1", "PodManager", "vote", [1n, CORE(String(i + 1)), true]);
    await write("voter2", "PodManager", "vote", [2n, CORE(String(i + 1)), i % 2 === 0]);
  }
  await h().caughtUp();
  alice = await registerAgent(h(), { name: "Alice", description: "Listens" });
  bob = await registerAgent(h(), { name: "Bob", description: "Listens too" });
}, 240_000);

describe("the address check", () => {
  it("passes public addresses only, IPv4 inside IPv6 included", () => {
    for (const address of ["8.8.8.8", "93.184.215.14", "2606:4700:4700::1111", "::ffff:8.8.8.8"]) {
      expect(isPublicAddress(address), address).toBe(true);
    }
    for (const address of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "::1",
      "::",
      "fe80::1",
      "fd00::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "64:ff9b::a00:1",
      "2002:a00:1::1",
      "localhost",
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
  });

  it("retries after a doubling delay, capped, and pauses after N failures or the retry period", () => {
    const schedule = { retryBaseMs: 1_000, retryMaxDelayMs: 60_000 };
    expect([1, 2, 3, 4, 7, 8, 30].map((n) => retryDelayMs(schedule, n))).toEqual([1_000, 2_000, 4_000, 8_000, 60_000, 60_000, 60_000]);
    const limits = { maxFailures: 5, retryForMs: 86_400_000 };
    const since = new Date("2026-01-01T00:00:00Z");
    expect(pauseReason(limits, 4, since, new Date("2026-01-01T01:00:00Z"), "HTTP 500")).toBeUndefined();
    expect(pauseReason(limits, 5, since, new Date("2026-01-01T01:00:00Z"), "HTTP 500")).toBe("5 failed deliveries in a row (last: HTTP 500)");
    expect(pauseReason(limits, 2, since, new Date("2026-01-02T00:00:00Z"), "HTTP 500")).toContain("failing since 2026-01-01T00:00:00.000Z");
  });
});

describe("/webhooks", () => {
  it("refuses bad subscriptions with a flat 400, and another agent's subscription is 404", async () => {
    const url = "http://127.0.0.1:9/hook";
    expect((await h().request(`${BASE}/webhooks`, { body: { url } })).status).toBe(401);
    for (const body of [
      { url: "ftp://example.org/hook" },
      { url: "not a url" },
      { url: "http://user:pass@127.0.0.1:9/hook" },
      { url, kinds: ["vote", "coffee_brewed"] },
      { url, datanet: "one" },
      { url, wallet: "0x1234" },
      { url, colour: "blue" },
      {},
    ]) {
      const response = await alice.request(`${BASE}/webhooks`, { body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      const answer = await json(response);
      expect(Object.keys(answer)).toEqual(["error"]);
      expect(typeof answer.error).toBe("string");
    }
    expect(await json(await alice.request(`${BASE}/webhooks`))).toEqual({ data: [] });

    // without WEBHOOK_ALLOW_PRIVATE (the default): private addresses are refused at subscribe time
    const strict = createPlatformApp({
      ...h().deps,
      platform: { ...h().runtime, config: { ...h().runtime.config, webhooks: { ...config(), allowPrivate: false } } },
    });
    const post = (body: unknown) =>
      strict.request(`${BASE}/webhooks`, {
        method: "POST",
        headers: { Authorization: `Bearer ${alice.credential}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
    for (const target of [
      url,
      "http://localhost:9/hook",
      "http://[::1]:9/hook",
      "http://169.254.169.254/latest/meta-data",
      "http://10.0.0.1/hook",
      "http://[::ffff:127.0.0.1]/hook",
    ]) {
      const response = await post({ url: target });
      expect(response.status, target).toBe(400);
      expect(await json(response)).toEqual({ error: "url must resolve to public addresses only" });
    }
    const unresolvable = await post({ url: "http://nothing.invalid/hook" });
    expect(unresolvable.status).toBe(400);
    expect(await json(unresolvable)).toEqual({ error: "url's host does not resolve" });
    const publicOne = await post({ url: "https://93.184.215.14/hook", kinds: ["vote"], datanet: "1" });
    expect(publicOne.status).toBe(201);
    strict.close();
    const created = (await json(publicOne)).data;
    expect(created).toMatchObject({
      url: "https://93.184.215.14/hook",
      kinds: ["vote"],
      filters: { datanet: "1", pod: null, wallet: null },
      status: "active",
      pausedReason: null,
      failureCount: 0,
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);

    // the secret is shown once; the owner sees the rest; another agent sees nothing of it
    const mine = await status(alice, created.id);
    expect(mine).not.toHaveProperty("secret");
    expect((await json(await alice.request(`${BASE}/webhooks`))).data.map((w: { id: string }) => w.id)).toEqual([created.id]);
    expect((await json(await bob.request(`${BASE}/webhooks`))).data).toEqual([]);
    for (const [method, path] of [
      ["GET", `/webhooks/${created.id}`],
      ["DELETE", `/webhooks/${created.id}`],
      ["POST", `/webhooks/${created.id}/resume`],
      ["GET", "/webhooks/not-a-uuid"],
      ["DELETE", "/webhooks/00000000-0000-4000-8000-000000000000"],
    ] as const) {
      const response = await bob.request(`${BASE}${path}`, { method });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(await json(response)).toEqual({ error: expect.any(String) });
    }
    expect((await alice.request(`${BASE}/webhooks/${created.id}`, { method: "DELETE" })).status).toBe(200);
    expect((await alice.request(`${BASE}/webhooks/${created.id}`)).status).toBe(404);
  });

  it("delivers the event stream's events in order, signed, with the stream's ids and bodies; filters and kinds apply", async () => {
    const r = await receiver();
    const all = await subscribe(alice, { url: r.url, replay: true });
    const votes = await subscribe(alice, { url: r.url, replay: true, kinds: ["vote"], pod: "2" });
    const expected = await sseEvents();
    const expectedVotes = (await sseEvents("?pod=2")).filter((m) => m.event === "vote");
    expect(expected.length).toBeGreaterThan(10);
    expect(expectedVotes).toHaveLength(4);
    worker();
    await eventually(async () => r.acked(all.id).length >= expected.length && r.acked(votes.id).length >= expectedVotes.length);
    expect(r.of(all.id).map((hit) => hit.id)).toEqual(expected.map((m) => m.id));
    expect(r.of(all.id).map((hit) => hit.body)).toEqual(expected.map((m) => m.data));
    expect(r.of(all.id).map((hit) => hit.event)).toEqual(expected.map((m) => m.event));
    expect(r.of(votes.id).map((hit) => hit.id)).toEqual(expectedVotes.map((m) => m.id));
    for (const hit of r.of(all.id)) expect(verify(all.secret, hit)).toBe(true);
    for (const hit of r.of(votes.id)) expect(verify(votes.secret, hit)).toBe(true);
    // another secret does not verify
    expect(verify(votes.secret, r.of(all.id)[0]!)).toBe(false);
    expect(r.maxInFlight).toBe(1);
    const shown = await status(alice, all.id);
    expect(shown).toMatchObject({ status: "active", failureCount: 0, pending: 0, lastDeliveredId: expected.at(-1)!.id });

    // a subscription made now gets only what happens next
    const later = await subscribe(alice, { url: r.url });
    await h().write(who("voter1"), "PodManager", "vote", [1n, CORE("1"), true]);
    await h().caughtUp();
    await eventually(async () => r.acked(later.id).length >= 1);
    const next = (await sseEvents()).at(-1)!;
    expect(r.of(later.id).map((hit) => hit.id)).toEqual([next.id]);
    await eventually(async () => r.acked(all.id).at(-1) === next.id);
  });

  it("retries through 500s and a closed receiver: every event arrives, in order, duplicates only of ids already sent", async () => {
    const r = await receiver();
    const sub = await subscribe(alice, { url: r.url, replay: true });
    const expected = (await sseEvents()).map((m) => m.id);
    let failures = 0;
    // the third message fails five times, then the receiver goes down
    r.answer = (hit) => (r.of(sub.id).length >= 3 && failures++ < 5 ? 500 : hit.id === expected[6] ? "hang" : 200);
    worker();
    await eventually(async () => failures >= 5);
    const failing = await status(alice, sub.id);
    expect(failing.lastError).toBe("HTTP 500");
    // down: the receiver holds the 7th message, then closes
    await eventually(async () => r.hits.some((hit) => hit.id === expected[6]));
    await r.stop();
    await eventually(async () => ((await status(alice, sub.id)).lastError as string).startsWith("request failed"));
    expect((await status(alice, sub.id)).failureCount).toBeGreaterThan(0);
    r.answer = () => 200;
    await r.start();
    await eventually(async () => r.acked(sub.id).length >= expected.length);
    const seen = r.of(sub.id).map((hit) => hit.id);
    // deduplicated by id, the receiver holds the stream exactly
    expect([...new Set(seen)]).toEqual(expected);
    // and every repeat is of the id just sent (the one not acknowledged)
    for (let i = 1; i < seen.length; i++) {
      if (seen.indexOf(seen[i]!) < i) expect(seen[i]).toBe(seen[i - 1]);
    }
    expect(seen.length).toBeGreaterThan(expected.length);
    expect(await status(alice, sub.id)).toMatchObject({ status: "active", failureCount: 0, pending: 0 });
  });

  it("goes on from the stored cursor after its process stops mid-way, in another process", async () => {
    const r = await receiver();
    r.delayMs = 20;
    const sub = await subscribe(alice, { url: r.url, replay: true });
    const expected = (await sseEvents()).map((m) => m.id);
    const first = worker({}, { ownPool: true });
    await eventually(async () => r.acked(sub.id).length >= 5);
    await first.stop();
    const stopped = await status(alice, sub.id);
    // the last acknowledged, or the one before when the stop cut the worker off from the receiver's 2xx
    expect(r.acked(sub.id).slice(-2)).toContain(stopped.lastDeliveredId);
    expect(r.acked(sub.id).length).toBeLessThan(expected.length);
    worker({}, { ownPool: true });
    await eventually(async () => r.acked(sub.id).length >= expected.length);
    const seen = r.of(sub.id).map((hit) => hit.id);
    expect([...new Set(seen)]).toEqual(expected);
    // at most the message cut by the stop comes twice
    expect(seen.length - expected.length).toBeLessThanOrEqual(1);
  });

  it("two processes on one database never deliver a subscription's messages at once, twice or out of order", async () => {
    const r = await receiver();
    r.delayMs = 5;
    const subs: Array<{ id: string; secret: string }> = [];
    for (let i = 0; i < 4; i++) subs.push(await subscribe(i % 2 === 0 ? alice : bob, { url: r.url, replay: true }));
    const expected = (await sseEvents()).map((m) => m.id);
    const a = worker({}, { ownPool: true });
    const b = worker({}, { ownPool: true });
    await eventually(async () => subs.every((sub) => r.acked(sub.id).length >= expected.length));
    for (const sub of subs) expect(r.of(sub.id).map((hit) => hit.id)).toEqual(expected);
    expect(r.maxInFlight).toBe(1);
    expect(a.delivered + b.delivered).toBe(subs.length * expected.length);
  });

  it("polls the log once per interval for all subscriptions: an idle log is not read per subscription", async () => {
    const r = await receiver();
    const subs: Array<{ id: string; secret: string }> = [];
    for (let i = 0; i < 6; i++) subs.push(await subscribe(i % 2 === 0 ? alice : bob, { url: r.url, kinds: ["vote"] }));
    const w = worker();
    // every subscription read once and found nothing new
    await eventually(async () => w.logReads >= subs.length);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const reads = w.logReads;
    const polls = w.versionPolls;
    await new Promise((resolve) => setTimeout(resolve, 20 * config().pollIntervalMs));
    expect(w.versionPolls - polls).toBeGreaterThan(0);
    // the log did not change: no subscription read it again
    expect(w.logReads - reads).toBe(0);

    // a new event: every subscription reads the log and gets it
    await h().write(who("voter1"), "PodManager", "vote", [1n, CORE("1"), true]);
    await h().caughtUp();
    await eventually(async () => subs.every((sub) => r.acked(sub.id).length === 1));
    for (const sub of subs) expect(r.of(sub.id).map((hit) => hit.event)).toEqual(["vote"]);
  });

  it("retracts a delivered event that a reorg removed, then delivers what replaced it", async () => {
    const r = await receiver();
    const sub = await subscribe(alice, { url: r.url, kinds: ["vote"] });
    worker();
    const before = (await sseEvents()).at(-1)!.id;
    const snapshot = (await anvil().snapshot()) as Hex;
    await h().write(who("voter1"), "PodManager", "vote", [1n, CORE("3"), true]);
    await h().caughtUp();
    await eventually(async () => r.acked(sub.id).length >= 1);
    const lost = r.of(sub.id)[0]!;
    expect(lost.event).toBe("vote");

    await anvil().revert({ id: snapshot });
    await h().write(who("voter2"), "PodManager", "vote", [1n, CORE("4"), false]);
    await anvil().mine({ blocks: 3 });
    await h().caughtUp();
    // what the receiver holds, applying the retractions, comes to the canonical votes after the fork
    // point (voter2's; a node may mine the lost transaction again too, and the indexer may see more
    // than one reorg): that is the guarantee, whatever the order in which the indexer saw the forks
    const canonical = async () => {
      const stream = await sseEvents();
      return stream.slice(stream.findIndex((m) => m.id === before) + 1).filter((m) => m.event === "vote");
    };
    const held = () => {
      const events = new Map<string, string>();
      for (const hit of r.of(sub.id).filter((one) => one.status === 200)) {
        if (hit.event === "retraction") events.delete(JSON.parse(hit.body).id);
        else events.set(hit.id, hit.body);
      }
      return [...events.entries()];
    };
    await eventually(async () => JSON.stringify(held()) === JSON.stringify((await canonical()).map((m) => [m.id, m.data])));
    const replaced = await canonical();
    expect(replaced.map((m) => m.id)).not.toContain(lost.id);
    expect(replaced.some((m) => JSON.parse(m.data).data.voter === who("voter2").address.toLowerCase())).toBe(true);
    const [, retraction] = r.of(sub.id);
    expect(retraction).toMatchObject({ event: "retraction", id: `retraction:${lost.id}` });
    expect(JSON.parse(retraction!.body)).toEqual({ id: lost.id, reason: "reorg" });
    expect(verify(sub.secret, retraction!)).toBe(true);
    expect(r.of(sub.id).every((hit) => verify(sub.secret, hit))).toBe(true);
  });

  it("pauses a subscription that keeps failing, shows why, and resumes it without a gap", async () => {
    const r = await receiver();
    r.answer = () => 503;
    const sub = await subscribe(bob, { url: r.url, replay: true });
    const expected = (await sseEvents()).map((m) => m.id);
    worker({ maxFailures: 3 });
    await eventually(async () => (await status(bob, sub.id)).status === "paused");
    const paused = await status(bob, sub.id);
    expect(paused).toMatchObject({
      status: "paused",
      pausedReason: "3 failed deliveries in a row (last: HTTP 503)",
      lastError: "HTTP 503",
      failureCount: 3,
      lastDeliveredId: null,
    });
    expect(r.of(sub.id).map((hit) => hit.id)).toEqual([expected[0], expected[0], expected[0]]);
    expect((await alice.request(`${BASE}/webhooks/${sub.id}/resume`, { method: "POST" })).status).toBe(404);

    r.answer = () => 200;
    const resumed = await bob.request(`${BASE}/webhooks/${sub.id}/resume`, { method: "POST" });
    expect(resumed.status).toBe(200);
    expect((await json(resumed)).data).toMatchObject({ status: "active", pausedReason: null, failureCount: 0 });
    await eventually(async () => r.acked(sub.id).length >= expected.length);
    expect(r.acked(sub.id)).toEqual(expected);
    expect(await status(bob, sub.id)).toMatchObject({ status: "active", pausedReason: null, lastError: "HTTP 503" });

    // failing for longer than the retry period pauses too
    r.answer = () => 500;
    const timed = await subscribe(bob, { url: r.url, replay: true });
    await Promise.all(workers.splice(0).map((w) => w.stop()));
    worker({ retryForMs: 1 });
    await eventually(async () => (await status(bob, timed.id)).status === "paused");
    expect((await status(bob, timed.id)).pausedReason).toMatch(/^deliveries failing since .* \(last: HTTP 500\)$/);
  });

  it("checks the address again at delivery: a subscription whose host is no longer allowed gets nothing", async () => {
    const r = await receiver();
    const literal = await subscribe(alice, { url: r.url, replay: true });
    // a name: checked on the answer the connection uses (a name re-pointed after subscribing fails)
    const named = await subscribe(alice, { url: `http://localhost:${r.port}/hook`, replay: true });
    worker({ allowPrivate: false, maxFailures: 1 });
    await eventually(async () => (await status(alice, literal.id)).status === "paused");
    await eventually(async () => (await status(alice, named.id)).status === "paused");
    expect((await status(alice, literal.id)).lastError).toBe("127.0.0.1 resolves to a non-public address (127.0.0.1)");
    expect((await status(alice, named.id)).lastError).toMatch(/^request failed: localhost resolves to a non-public address \((127\.0\.0\.1|::1)\)$/);
    expect(r.hits).toHaveLength(0);
  });

  it("a subscription claimed by a process that died is taken over once its lease runs out", async () => {
    const r = await receiver();
    const sub = await subscribe(alice, { url: r.url, replay: true });
    const expected = (await sseEvents()).map((m) => m.id);
    // the dead process: it claimed the subscription and never came back
    const claimed = await claimDueWebhook(h().store.db, randomUUID(), 300);
    expect(claimed?.id).toBe(sub.id);
    const w = worker({}, { ownPool: true });
    await eventually(async () => r.acked(sub.id).length >= expected.length);
    expect(r.of(sub.id).map((hit) => hit.id)).toEqual(expected);
    expect(w.delivered).toBe(expected.length);
  });
});
