/**
 * GET /events (server-sent events) through the real platform app, the indexer and anvil: the
 * replay from `0` equals the chain's own logs in order, filters, resuming with Last-Event-ID (header
 * and query) without gaps or duplicates, bad parameters, the stream cap and a reorg (anvil
 * snapshot/revert, as in reorg.test.ts) that retracts an event already sent.
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { createTestClient, decodeEventLog, http, parseEther, type Abi, type Hex } from "viem";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { roleAccount, type Role } from "../../devnet/accounts";
import { DAY } from "../../devnet/deploy";
import { createDb, type OffchainDb } from "../../api/db/client";
import { EventFeed } from "../../api/platform/services/event-feed";
import { EVENT_BATCH, type EventFilter, type Resume, runEventStream, topicsOf } from "../../api/platform/services/events";
import { type EventRow, eventsBetween, indexedBlockNumber } from "../../api/platform/repositories/events";
import { comparePositions, datanetTopic, walletTopic } from "../../src/lib/event-log";
import { BASE, json, usePlatformHarness } from "./harness";

const MAX_STREAMS = 3;
const h = usePlatformHarness({
  indexer: true,
  platformEnv: { EVENTS_POLL_INTERVAL_MS: "100", EVENTS_KEEPALIVE_SECONDS: "1", EVENTS_MAX_STREAMS: String(MAX_STREAMS) },
});
const who = (role: Role) => roleAccount(role);
const CORE = (n: string) => parseEther(n);
const p = () => h().devnet.protocol;
const anvil = () => createTestClient({ mode: "anvil", transport: http(h().devnet.chain.rpcUrl) });

const KINDS: Record<string, string> = {
  SubnetPublished: "datanet_published",
  SubnetAccessGranted: "access_granted",
  PodMinted: "pod_minted",
  PodRepublished: "pod_republished",
  PodInvalidated: "pod_invalidated",
  Voted: "vote",
  PodOwnerEmissionsClaimed: "emissions_claimed",
  VoterEmissionsClaimed: "emissions_claimed",
  Staked: "lock_created",
  StakeIncreased: "lock_increased",
  LockExtended: "lock_extended",
  Withdrawn: "lock_withdrawn",
};

type Received = { event: string; id: string | undefined; data: any };

/** An SSE client over one response: messages in order, comments counted. */
class Stream {
  readonly messages: Received[] = [];
  /** Keep-alive comments received. */
  comments = 0;
  private waiters: Array<() => void> = [];
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private closed = false;

  constructor(readonly response: Response) {
    const reader = response.body!.getReader();
    this.reader = reader;
    const parser = createParser({
      onEvent: (message: EventSourceMessage) => {
        this.messages.push({ event: message.event ?? "message", id: message.id, data: JSON.parse(message.data) });
        this.notify();
      },
      onComment: (comment: string) => {
        if (comment.trim() !== "keep-alive") return;
        this.comments += 1;
        this.notify();
      },
    });
    const decoder = new TextDecoder();
    void (async () => {
      for (;;) {
        const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
        if (done) break;
        parser.feed(decoder.decode(value, { stream: true }));
      }
      this.closed = true;
      this.notify();
    })();
  }

  private notify() {
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** Resolves once `done()` holds (re-checked on every message or comment). */
  async until(done: () => boolean): Promise<void> {
    while (!done()) {
      if (this.closed) throw new Error("stream ended");
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** Waits for `count` messages in all. */
  async count(count: number): Promise<Received[]> {
    await this.until(() => this.messages.length >= count);
    return this.messages.slice(0, count);
  }

  /**
   * Waits until the server has nothing more to send: it sends a keep-alive only after a poll that
   * found nothing new and a full interval without messages. The first keep-alive after this call
   * may come from a poll that started before it; the second comes from a later poll.
   */
  async idle(): Promise<Received[]> {
    const comments = this.comments;
    await this.until(() => this.comments >= comments + 2);
    return [...this.messages];
  }

  async close() {
    await this.reader.cancel().catch(() => undefined);
  }
}

const open: Stream[] = [];

async function connect(query = "", headers: Record<string, string> = {}): Promise<Stream> {
  const response = await h().request(`${BASE}/events${query}`, { headers });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/event-stream");
  const stream = new Stream(response);
  open.push(stream);
  return stream;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((stream) => stream.close()));
});

/** The protocol events on chain, in order, as the stream must name them. */
async function chainEvents(): Promise<Array<{ id: string; kind: string }>> {
  const contracts = ["VeCore", "SubnetManager", "PodManager"] as const;
  const logs = await p().publicClient.getLogs({
    address: contracts.map((name) => p().address(name)),
    fromBlock: 0n,
    toBlock: "latest",
  });
  const out: Array<{ id: string; kind: string }> = [];
  for (const log of logs) {
    const name = contracts.find((c) => p().address(c).toLowerCase() === log.address.toLowerCase())!;
    const { eventName } = decodeEventLog({ abi: p().abis[name] as Abi, data: log.data, topics: log.topics });
    const kind = eventName ? KINDS[eventName] : undefined;
    if (kind) out.push({ id: `${log.blockNumber}-${log.logIndex}-${log.blockHash!.slice(2, 18)}`, kind });
  }
  return out;
}

const ids = (messages: Received[]) => messages.map((m) => m.id);
const addressesIn = (data: Record<string, unknown>) =>
  Object.values(data).filter((value): value is string => typeof value === "string" && /^0x[0-9a-f]{40}$/.test(value));

let voter1Pod: bigint;

beforeAll(async () => {
  for (const role of ["curatorA", "curatorB", "voter1", "voter2", "voter3"] as const) await h().fund(who(role));
  const write = (role: Role, contract: "SubnetManager" | "PodManager" | "VeCore", fn: string, args: unknown[]) =>
    h().write(who(role), contract, fn, args);
  await write("curatorA", "SubnetManager", "publishSubnet", [p().address("DemoToken")]); // datanet 1
  await write("curatorB", "SubnetManager", "publishSubnet", [p().address("DemoToken")]); // datanet 2
  await write("curatorA", "SubnetManager", "setEmissionsPerEpochCORE", [1n, CORE("1000")]);
  await write("curatorA", "SubnetManager", "seedEmissionPool", [1n, CORE("5000"), 0n]);
  for (const voter of ["voter1", "voter2", "voter3"] as const) {
    await write(voter, "VeCore", "stake", [CORE("1000"), BigInt(365 * DAY)]);
    await write(voter, "SubnetManager", "accessSubnetWithCOREFee", [1n, who(voter).address]);
  }
  // a subscription paid by curatorB for voter3 in datanet 2
  await write("curatorB", "SubnetManager", "accessSubnetWithCOREFee", [2n, who("voter3").address]);
  await write("voter1", "VeCore", "stakeMore", [1n, CORE("10")]);
  await write("voter2", "VeCore", "extendLock", [2n, BigInt(30 * DAY)]);
  await write("curatorB", "PodManager", "mintPodWithCORE", [who("curatorB").address, 1n]); // pod 1
  await write("curatorA", "PodManager", "mintPodWithCORE", [who("curatorA").address, 1n]); // pod 2
  voter1Pod = 3n;
  await write("voter1", "PodManager", "mintPodWithCORE", [who("voter1").address, 1n]); // pod 3
  await write("voter1", "PodManager", "vote", [1n, CORE("40"), true]);
  await write("voter2", "PodManager", "vote", [1n, CORE("25"), true]);
  await write("voter3", "PodManager", "vote", [2n, CORE("12"), false]);
  await write("voter2", "PodManager", "vote", [voter1Pod, CORE("8"), true]);
  await write("curatorA", "PodManager", "republishPod", [2n, 2n]);
  await p().advanceToNextEpoch();
  await write("curatorB", "PodManager", "claimPodOwnerEmissions", [1n, 1n]);
  await write("voter3", "PodManager", "claimVoterEmissions", [who("voter2").address, 1n, 1n]);
  await write("deployer", "PodManager", "invalidatePod", [voter1Pod, "spam"]);
  await h().caughtUp();
}, 240_000);

describe("GET /events", () => {
  it("replays every protocol event from 0, in chain order, with the chain's ids", async () => {
    const expected = await chainEvents();
    expect(new Set(expected.map((e) => e.kind)).size).toBeGreaterThanOrEqual(10);
    const stream = await connect("", { "Last-Event-ID": "0" });
    const got = await stream.idle();
    expect(got.map((m) => ({ id: m.id, kind: m.event }))).toEqual(expected);
    for (const message of got) {
      expect(message.data).toMatchObject({ id: message.id, kind: message.event });
      expect(message.data.blockHash.slice(2, 18)).toBe(message.id!.split("-")[2]);
    }
    const vote = got.find((m) => m.event === "vote")!;
    expect(vote.data.data).toMatchObject({ podId: "1", voter: who("voter1").address.toLowerCase(), votes: CORE("40").toString() });
    const claim = got.find((m) => m.event === "emissions_claimed" && m.data.data.claim === "voter")!;
    expect(claim.data.data).toMatchObject({ account: who("voter2").address.toLowerCase(), sender: who("voter3").address.toLowerCase() });
  });

  it("filters by datanet, pod and wallet (together: all of them)", async () => {
    const all = await (await connect("?lastEventId=0")).idle();
    await Promise.all(open.splice(0).map((s) => s.close()));
    const voter1 = who("voter1").address.toLowerCase();
    const cases: Array<[string, (m: Received) => boolean]> = [
      ["?datanet=2", (m) => m.data.data.subnetId === "2" || m.data.data.previousSubnetId === "2"],
      ["?pod=1", (m) => m.data.data.podId === "1"],
      [`?wallet=${who("voter1").address}`, (m) => addressesIn(m.data.data).includes(voter1)],
      [`?wallet=${voter1}&datanet=1`, (m) => addressesIn(m.data.data).includes(voter1) && m.data.data.subnetId === "1"],
      [`?pod=${voter1Pod}&wallet=${who("deployer").address}`, (m) => m.event === "pod_invalidated"],
    ];
    for (const [query, wanted] of cases) {
      const expected = all.filter(wanted);
      expect(expected.length, query).toBeGreaterThan(0);
      const stream = await connect(`${query}&lastEventId=0`);
      expect(ids(await stream.idle()), query).toEqual(ids(expected));
      await stream.close();
    }
    // the republish of pod 2 from datanet 1 into datanet 2 is an event of both
    const republish = all.find((m) => m.event === "pod_republished")!;
    const inOne = await (await connect("?datanet=1&lastEventId=0")).idle();
    expect(ids(inOne)).toContain(republish.id);
  });

  it("resumes after Last-Event-ID (header or query) without gaps or duplicates", async () => {
    const all = await (await connect("?lastEventId=0")).idle();
    for (const cut of [1, 7, all.length - 1]) {
      const resumed = await connect("", { "Last-Event-ID": all[cut - 1]!.id! });
      expect(ids(await resumed.idle())).toEqual(ids(all.slice(cut)));
      const viaQuery = await connect(`?lastEventId=${all[cut - 1]!.id}`);
      expect(ids(await viaQuery.idle())).toEqual(ids(all.slice(cut)));
      await Promise.all(open.splice(1).map((s) => s.close()));
    }
    // the header wins over the query
    const both = await connect(`?lastEventId=0`, { "Last-Event-ID": all.at(-2)!.id! });
    expect(ids(await both.idle())).toEqual(ids(all.slice(-1)));
  });

  it("streams new events live, then resumes across a disconnection", async () => {
    const live = await connect();
    await live.idle();
    expect(live.messages).toEqual([]);
    await h().write(who("voter1"), "PodManager", "vote", [1n, CORE("1"), true]);
    const [first] = await live.count(1);
    expect(first).toMatchObject({ event: "vote", data: { data: { voter: who("voter1").address.toLowerCase(), podId: "1" } } });
    await live.close();

    await h().write(who("voter2"), "PodManager", "vote", [1n, CORE("2"), true]);
    await h().write(who("voter3"), "VeCore", "stake", [CORE("5"), BigInt(60 * DAY)]);
    await h().caughtUp();
    const resumed = await connect("", { "Last-Event-ID": first!.id! });
    const missed = await resumed.idle();
    expect(missed.map((m) => m.event)).toEqual(["vote", "lock_created"]);
    const onChain = await chainEvents();
    expect(ids(missed)).toEqual(onChain.slice(onChain.findIndex((e) => e.id === first!.id) + 1).map((e) => e.id));
  });

  it("answers bad filters and ids with a flat 400", async () => {
    for (const query of [
      "?datanet=abc",
      "?datanet=-1",
      `?pod=${"9".repeat(79)}`,
      "?wallet=0x1234",
      "?wallet=vitalik.eth",
      "?lastEventId=12",
      "?lastEventId=abc-1-0011223344556677",
      `?lastEventId=1-1-${"g".repeat(16)}`,
    ]) {
      const response = await h().request(`${BASE}/events${query}`);
      expect(response.status, query).toBe(400);
      expect(Object.keys(await json(response))).toEqual(["error"]);
    }
    const badHeader = await h().request(`${BASE}/events`, { headers: { "Last-Event-ID": "not-an-id" } });
    expect(badHeader.status).toBe(400);
    expect(await json(badHeader)).toEqual({ error: "Last-Event-ID must be 0 or an event id such as 212-1-3b1d6b0e6e1f44a2" });
  });

  it("caps open streams (503 with Retry-After) and frees a slot when a client leaves", async () => {
    const streams = [];
    for (let i = 0; i < MAX_STREAMS; i++) streams.push(await connect());
    const refused = await h().request(`${BASE}/events`);
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("5");
    expect(await json(refused)).toEqual({ error: "Too many event streams; retry later" });
    await streams[0]!.close();
    const again = await connect();
    await again.idle();
  });

  it("retracts an event a reorg removed, then sends what replaced it; a resume from the lost id is retracted too", async () => {
    const stream = await connect();
    await stream.idle();
    const before = (await chainEvents()).at(-1)!;
    const snapshot = (await anvil().snapshot()) as Hex;
    // branch A: voter1 votes, and the stream sends it
    await h().write(who("voter1"), "PodManager", "vote", [1n, CORE("3"), true]);
    const [lost] = await stream.count(1);
    expect(lost!.event).toBe("vote");

    // branch B (longer): voter2 votes instead
    await anvil().revert({ id: snapshot });
    await h().write(who("voter2"), "PodManager", "vote", [1n, CORE("4"), false]);
    await anvil().mine({ blocks: 3 });
    await h().caughtUp();
    await stream.until(() => stream.messages.some((m) => m.event === "vote" && m.id !== lost!.id));
    const [, retraction, replacement] = stream.messages;
    expect(stream.messages).toHaveLength(3);
    expect(retraction).toMatchObject({ event: "retraction", data: { id: lost!.id, reason: "reorg" } });
    expect(replacement!.event).toBe("vote");
    expect(replacement!.data.data).toMatchObject({ voter: who("voter2").address.toLowerCase(), upVote: false });
    expect(replacement!.id).not.toBe(lost!.id);
    // the stream now agrees with the chain, and the retraction's id is a canonical event before the replacement
    const canonical = (await chainEvents()).map((e) => e.id);
    expect(canonical.at(-1)).toBe(replacement!.id);
    expect(canonical.indexOf(retraction!.id!)).toBeGreaterThanOrEqual(0);
    expect(canonical.indexOf(retraction!.id!)).toBeLessThanOrEqual(canonical.indexOf(before.id));

    // a client that got the lost event and reconnects with it: one retraction of everything after
    // `from` (what is final for sure), then the canonical events after `from`
    const resumed = await connect("", { "Last-Event-ID": lost!.id! });
    const got = await resumed.idle();
    const [first, ...rest] = got;
    expect(first).toMatchObject({ event: "retraction", data: { id: lost!.id, reason: "reorg" } });
    const from = first!.data.from as string;
    expect(first!.id).toBe(from);
    const onChain = await chainEvents();
    const after = from === "0" ? onChain : onChain.slice(onChain.findIndex((e) => e.id === from) + 1);
    expect(ids(rest)).toEqual(after.map((e) => e.id));
    expect(ids(rest)).toContain(replacement!.id);
    expect(ids(rest)).not.toContain(lost!.id);
  });

  it("retracts the resume point of a client whose last event a reorg removed after it reconnected", async () => {
    const snapshot = (await anvil().snapshot()) as Hex;
    await h().write(who("voter3"), "PodManager", "vote", [1n, CORE("6"), true]);
    await h().caughtUp();
    const mine = (await chainEvents()).at(-1)!;
    const stream = await connect("", { "Last-Event-ID": mine.id });
    await stream.idle();
    expect(stream.messages).toEqual([]);

    await anvil().revert({ id: snapshot });
    await h().write(who("voter1"), "PodManager", "vote", [1n, CORE("2"), false]);
    await anvil().mine({ blocks: 3 });
    await h().caughtUp();
    await stream.until(() => stream.messages.some((m) => m.event === "vote"));
    const [retraction, replacement] = stream.messages;
    expect(retraction).toMatchObject({ event: "retraction", data: { id: mine.id, reason: "reorg" } });
    expect(replacement!.data.data).toMatchObject({ voter: who("voter1").address.toLowerCase(), upVote: false });
    expect((await stream.idle()).length).toBe(2);
  });

  it("replays in batches without gaps or duplicates (the service, with batches of 3)", async () => {
    const expected = (await chainEvents()).map((e) => e.id);
    const got: string[] = [];
    let aborted = false;
    await runEventStream({
      db: h().store.db,
      viewsSchema: "chain",
      topics: [],
      resume: { kind: "start" },
      pollIntervalMs: 10,
      keepAliveMs: 60_000,
      batchSize: 3,
      logger: { warn: () => undefined },
      signal: {
        get aborted() {
          return aborted;
        },
        wait: async () => {
          // the first wait comes after the first batch that was not full: the replay is done
          aborted = true;
        },
      },
      write: async (message) => {
        if ("event" in message) got.push(message.id!);
      },
    });
    expect(got).toEqual(expected);
  });
});

describe("the event log's range query (repositories/events.ts)", () => {
  const position = (row: EventRow) => ({ blockNumber: row.blockNumber, logIndex: row.logIndex });

  it("gives the first or the last N events of a range, both in stream order, with or without topics", async () => {
    const db = h().store.db;
    const head = (await indexedBlockNumber(db, "chain"))!;
    const voter1 = who("voter1").address;
    for (const topics of [[], [datanetTopic(1n)], [walletTopic(voter1), datanetTopic(1n)]]) {
      const all = await eventsBetween(db, topics, { until: head, limit: 100_000 });
      const label = topics.join(" ") || "no topic";
      expect(all.length, label).toBeGreaterThanOrEqual(4);
      for (let i = 1; i < all.length; i++) expect(comparePositions(all[i - 1]!, all[i]!), label).toBeLessThan(0);
      expect(await eventsBetween(db, topics, { until: head, limit: 2 }), label).toEqual(all.slice(0, 2));
      expect(await eventsBetween(db, topics, { until: head, limit: 2, take: "last" }), label).toEqual(all.slice(-2));
      // strictly after an event, up to the block before the last event's
      const after = position(all[0]!);
      const until = all.at(-1)!.blockNumber - 1n;
      const inRange = all.slice(1).filter((row) => row.blockNumber <= until);
      expect(inRange.length, label).toBeGreaterThanOrEqual(2);
      expect(await eventsBetween(db, topics, { after, until, limit: 2 }), label).toEqual(inRange.slice(0, 2));
      expect(await eventsBetween(db, topics, { after, until, limit: 2, take: "last" }), label).toEqual(inRange.slice(-2));
    }
  });
});

describe("GET /events: one shared poller per process", () => {
  /** A stream run through the service on `feed`, as the handler runs it. */
  function serviceStream(feed: EventFeed, db: OffchainDb, filter: EventFilter, resume: Resume) {
    const got: Array<{ event: string; id: string | undefined }> = [];
    let aborted = false;
    let wake: (() => void) | undefined;
    const done = runEventStream({
      db,
      viewsSchema: "chain",
      topics: topicsOf(filter),
      resume,
      pollIntervalMs: 100,
      keepAliveMs: 60_000,
      feed,
      logger: { warn: () => undefined },
      signal: {
        get aborted() {
          return aborted;
        },
        wait: (ms) =>
          new Promise<void>((resolve) => {
            wake?.();
            const timer = setTimeout(finish, ms);
            function finish() {
              clearTimeout(timer);
              if (wake === finish) wake = undefined;
              resolve();
            }
            wake = finish;
          }),
      },
      write: async (message) => {
        if ("event" in message) got.push({ event: message.event, id: message.id });
      },
    });
    return {
      got,
      close: async () => {
        aborted = true;
        wake?.();
        await done;
      },
    };
  }

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  async function until(done: () => boolean, what: string, timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(10);
    }
  }

  // ~25 s on two loaded cores, most of it waiting for keep-alives of the ten replays
  it("reads the log once per interval whatever the number of streams, and each stream gets exactly its events", { timeout: 120_000 }, async () => {
    // a store of its own whose every statement is counted (the pool runs each on a client of its own)
    const store = createDb(h().database.url, { chainSchemaName: "chain", maxConnections: 4 });
    let queries = 0;
    store.pool.on("connect", (client) => {
      const clientQuery = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args) => {
        queries += 1;
        return clientQuery(...args);
      };
    });
    const feed = new EventFeed({
      db: store.db,
      viewsSchema: "chain",
      pollIntervalMs: 100,
      batchSize: EVENT_BATCH,
      logger: { warn: () => undefined },
    });
    const voter1 = who("voter1").address.toLowerCase() as `0x${string}`;
    const filters: Array<[string, EventFilter]> = [
      ["", {}],
      ["datanet=1", { datanet: 1n }],
      ["datanet=2", { datanet: 2n }],
      ["pod=1", { pod: 1n }],
      ["pod=2", { pod: 2n }],
      [`wallet=${voter1}`, { wallet: voter1 }],
      [`wallet=${who("voter3").address}`, { wallet: who("voter3").address }],
      [`wallet=${voter1}&datanet=2`, { wallet: voter1, datanet: 2n }],
      [`wallet=${who("curatorB").address}`, { wallet: who("curatorB").address }],
      [`pod=1&wallet=${who("voter2").address}`, { pod: 1n, wallet: who("voter2").address }],
    ];

    /** Counts from right after a poll completes (the next one starts an interval later). */
    async function mark() {
      const polls = feed.polls;
      await until(() => feed.polls > polls, "a poll");
      return { queries, statements: feed.statements, polls: feed.polls };
    }

    /** Statements per completed poll while `count` streams are open and joined, nothing new on chain. */
    async function idleCost(count: number) {
      const streams = Array.from({ length: count }, (_, i) =>
        serviceStream(feed, store.db, filters[i % filters.length]![1], { kind: "now" }),
      );
      await until(() => feed.joined === count, `${count} streams to join`);
      const start = await mark();
      await until(() => feed.polls >= start.polls + 10, "10 polls");
      const cost = { queries: queries - start.queries, polls: feed.polls - start.polls };
      return { streams, cost };
    }

    try {
      const one = await idleCost(1);
      await one.streams[0]!.close();
      expect(feed.running).toBe(false);
      const many = await idleCost(100);
      // one statement per poll, with 1 stream as with 100
      expect(one.cost.queries).toBe(one.cost.polls);
      expect(many.cost.queries).toBe(many.cost.polls);

      // new events while the 100 streams are open: still one statement per poll, fanned out in memory
      const before = (await chainEvents()).at(-1)!.id;
      const start = await mark();
      await h().write(who("voter1"), "PodManager", "vote", [1n, CORE("1"), true]);
      await h().write(who("voter3"), "VeCore", "stake", [CORE("5"), BigInt(60 * DAY)]);
      await h().write(who("curatorB"), "SubnetManager", "accessSubnetWithCOREFee", [2n, who("voter1").address]);
      await h().caughtUp();
      const last = (await chainEvents()).at(-1)!.id;
      await until(() => many.streams[0]!.got.some((m) => m.id === last), "the unfiltered stream to get the new events");
      const end = await mark();
      expect(end.queries - start.queries).toBe(end.statements - start.statements);
      expect(end.statements - start.statements).toBe(end.polls - start.polls);

      // each stream got exactly what a replay with its filter from the same point gives
      for (const [i, stream] of many.streams.entries()) {
        if (i < filters.length) {
          const [query] = filters[i]!;
          const replay = await connect(`?${query}&lastEventId=${before}`);
          const expected = await replay.idle();
          await replay.close();
          open.splice(open.indexOf(replay), 1);
          expect(stream.got, query).toEqual(expected.map((m) => ({ event: m.event, id: m.id })));
        } else {
          expect(stream.got).toEqual(many.streams[i % filters.length]!.got);
        }
      }
      expect(many.streams[0]!.got.length).toBe(3);

      await Promise.all(many.streams.map((stream) => stream.close()));
      // the last stream gone, the poller stops: no timer left
      expect(feed.size).toBe(0);
      expect(feed.running).toBe(false);
    } finally {
      feed.close();
      await store.pool.end();
    }
  });
});
