import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { deployProtocol } from "../../devnet/deploy";
import { startDevnet, type Devnet } from "../support/chain";
import { useFreshDatabase, type FreshDatabase } from "../support/database";
import { getJson, postJson, protocolOf, signIn, startChatApp, startFakeLlm, type ChatTestServer, type FakeLlm } from "./support";

interface ChatBody {
  sessionId: string;
  response: string;
  sources: { source: string; title: string; section: string }[];
  mode: string;
}
interface HistoryBody {
  sessionId: string;
  messages: { role: string; content: string; timestamp: string }[];
  createdAt: string;
  updatedAt: string;
}

let devnet: Devnet;
let database: FreshDatabase;
let server: ChatTestServer;
let llmServer: ChatTestServer;
let hourlyServer: ChatTestServer;
let fakeLlm: FakeLlm;
let llmFails = false;
let docsDir: string;
let offsetMs = 0;
const now = () => new Date(Date.now() + offsetMs);

const alice = privateKeyToAccount(generatePrivateKey());
const bob = privateKeyToAccount(generatePrivateKey());
let aliceToken: string;
let bobToken: string;

beforeAll(async () => {
  [devnet, database] = await Promise.all([startDevnet(), useFreshDatabase()]);
  docsDir = fs.mkdtempSync(path.join(os.tmpdir(), "chat-docs-"));
  fs.writeFileSync(
    path.join(docsDir, "curation.md"),
    "# Curation guide\n\n## Access fees\n\nBuying access to a datanet costs its access fee in CORE, paid once; access never expires.\n",
  );
  const env = { CHAT_DOCS_DIR: docsDir, SPEC_FILE: path.join(docsDir, "no-spec.md") };
  server = await startChatApp({ database, env, protocol: protocolOf(devnet.deployment, devnet.chain.rpcUrl), chat: { now } });

  fakeLlm = await startFakeLlm((messages) => {
    if (llmFails) throw new Error("down");
    const system = messages[0]?.content ?? "";
    return `LLM says: ${/epoch lasts ([^(]+)\(/.exec(system)?.[1]?.trim() ?? "no figure"} [1]`;
  });
  llmServer = await startChatApp({
    database,
    env: { ...env, CHAT_LLM_BASE_URL: `${fakeLlm.url}/v1`, CHAT_LLM_MODEL: "fake-model", CHAT_LLM_API_KEY: "k" },
    protocol: protocolOf(devnet.deployment, devnet.chain.rpcUrl),
  });

  // A second deployment on the same chain whose epochs last one hour.
  const hourly = await deployProtocol(devnet.chain.rpcUrl, { epochLengthSeconds: 3_600 });
  hourlyServer = await startChatApp({ database, env, protocol: protocolOf(hourly, devnet.chain.rpcUrl) });

  aliceToken = await signIn(server.app, alice);
  bobToken = await signIn(server.app, bob);
});

afterAll(async () => {
  await Promise.all([server?.close(), llmServer?.close(), hourlyServer?.close()]);
  await fakeLlm?.close();
  await devnet?.chain.stop();
  await database?.drop();
  if (docsDir) fs.rmSync(docsDir, { recursive: true, force: true });
});

async function chat(app: ChatTestServer["app"], token: string, body: unknown) {
  const response = await postJson(app, "/chat", body, token);
  return { status: response.status, body: (await response.json()) as ChatBody & { error?: string } };
}

describe("POST /chat", () => {
  it("starts a session and answers with sessionId, response, sources and mode", async () => {
    const { status, body } = await chat(server.app, aliceToken, { message: "How much does access to a datanet cost?" });
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(["mode", "response", "sessionId", "sources"]);
    expect(body.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.mode).toBe("rag");
    expect(body.response).toContain("access fee");
    expect(body.sources).toContainEqual({ source: "docs/curation.md", title: "Curation guide", section: "Access fees" });
  });

  it("answers the epoch-length question from live stats", async () => {
    const { body } = await chat(server.app, aliceToken, { message: "How long is an epoch?" });
    expect(body.mode).toBe("rag");
    expect(body.response).toContain("**48 hours**");
    expect(body.response).toContain("172800");
    expect(body.sources[0]).toEqual({ source: "live:stats", title: "Network stats (/stats)", section: "epochLengthSeconds" });

    const hourly = await chat(hourlyServer.app, await signIn(hourlyServer.app, alice), { message: "how long does an epoch last?" });
    expect(hourly.body.response).toContain("**1 hour**");
    expect(hourly.body.response).toContain("3600");
  });

  it.each([
    ["What can I claim?", "emissions"],
    ["Mint https://x.com/alice/status/1790000000000000000 for me", "minting"],
    ["I want to create a datanet called \"Ocean Data\" with symbol: OCEAN and decimals: 18", "subnet-creation"],
    ["What is a pod?", "rag"],
  ])("picks the mode for %j", async (message, mode) => {
    const { status, body } = await chat(server.app, aliceToken, { message });
    expect(status).toBe(200);
    expect(body.mode).toBe(mode);
  });

  it("checks a datanet proposal against the draft bounds in subnet-creation mode", async () => {
    const { body } = await chat(server.app, aliceToken, {
      message: "Create a new datanet:\nname: Ocean Data\ndescription: short\nsymbol: OCEANS\ndecimals: 18",
    });
    expect(body.mode).toBe("subnet-creation");
    expect(body.response).toMatch(/description \(`subnetDescription`\) is 5 characters, under the minimum of 10/);
    expect(body.response).toMatch(/token symbol \(`nativeTokenSymbol`\) is 6 characters, over the maximum of 5/);
    expect(body.response).toMatch(/✅ token decimals/);
  });

  it("explains and validates a post URL in minting mode", async () => {
    const { body } = await chat(server.app, aliceToken, { message: "can I mint https://x.com/alice/status/42 ?" });
    expect(body.mode).toBe("minting");
    expect(body.response).toContain("is a valid post URL");
    expect(body.response).toContain("POST /pods/mint");
  });

  it.each([
    ["a missing message", {}],
    ["an empty message", { message: "" }],
    ["a blank message", { message: "   " }],
    ["a non-string message", { message: 12 }],
    ["a message of 4001 characters", { message: "a".repeat(4_001) }],
    ["a malformed sessionId", { message: "hi", sessionId: "123" }],
  ])("answers 400 for %s", async (_label, body) => {
    const { status, body: json } = await chat(server.app, aliceToken, body);
    expect(status).toBe(400);
    expect(Object.keys(json)).toEqual(["error"]);
  });

  it("accepts a message of exactly 4000 characters", async () => {
    const { status } = await chat(server.app, aliceToken, { message: `${"a".repeat(3_999)}?` });
    expect(status).toBe(200);
  });
});

describe("sessions and history", () => {
  it("continues a session and returns its ordered history to its creator", async () => {
    const first = await chat(server.app, aliceToken, { message: "What is a pod?" });
    const second = await chat(server.app, aliceToken, { message: "How long is an epoch?", sessionId: first.body.sessionId });
    expect(second.status).toBe(200);
    expect(second.body.sessionId).toBe(first.body.sessionId);

    const response = await getJson(server.app, `/chat/${first.body.sessionId}/history`, aliceToken);
    expect(response.status).toBe(200);
    const history = (await response.json()) as HistoryBody;
    expect(Object.keys(history).sort()).toEqual(["createdAt", "messages", "sessionId", "updatedAt"]);
    expect(history.sessionId).toBe(first.body.sessionId);
    expect(history.messages.map((m) => [m.role, m.content])).toEqual([
      ["user", "What is a pod?"],
      ["assistant", first.body.response],
      ["user", "How long is an epoch?"],
      ["assistant", second.body.response],
    ]);
    const times = history.messages.map((m) => Date.parse(m.timestamp));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(history.updatedAt).toBe(history.messages.at(-1)!.timestamp);
    expect(Date.parse(history.createdAt)).toBeLessThanOrEqual(times[0]!);
  });

  it("never shows or continues another wallet's session (404 for both)", async () => {
    const own = await chat(server.app, aliceToken, { message: "What is a pod?" });
    const theirs = await chat(server.app, bobToken, { message: "Continue this", sessionId: own.body.sessionId });
    expect(theirs).toEqual({ status: 404, body: { error: "Session not found" } });
    const history = await getJson(server.app, `/chat/${own.body.sessionId}/history`, bobToken);
    expect(history.status).toBe(404);
    expect(await history.json()).toEqual({ error: "Session not found" });
    const mine = (await (await getJson(server.app, `/chat/${own.body.sessionId}/history`, aliceToken)).json()) as HistoryBody;
    expect(mine.messages).toHaveLength(2);
  });

  it("answers 404 for an unknown session", async () => {
    expect((await chat(server.app, aliceToken, { message: "hi", sessionId: randomUUID() })).status).toBe(404);
    expect((await getJson(server.app, `/chat/${randomUUID()}/history`, aliceToken)).status).toBe(404);
    expect((await getJson(server.app, "/chat/not-a-uuid/history", aliceToken)).status).toBe(404);
  });

  it("expires sessions after 30 days", async () => {
    const { body } = await chat(server.app, aliceToken, { message: "What is a pod?" });
    try {
      offsetMs = 30 * 86_400_000 - 3_600_000;
      const token = await signIn(server.app, alice); // the earlier token is past its 24 hours by now
      expect((await getJson(server.app, `/chat/${body.sessionId}/history`, token)).status).toBe(200);
      offsetMs = 30 * 86_400_000 + 1_000;
      const later = await signIn(server.app, alice);
      expect((await getJson(server.app, `/chat/${body.sessionId}/history`, later)).status).toBe(404);
      expect((await chat(server.app, later, { message: "still there?", sessionId: body.sessionId })).status).toBe(404);
    } finally {
      offsetMs = 0;
    }
  });
});

describe("with an OpenAI-compatible endpoint configured", () => {
  it("answers with the model, giving it the live facts and the retrieved passages", async () => {
    const token = await signIn(llmServer.app, alice);
    const { status, body } = await chat(llmServer.app, token, { message: "How long is an epoch?" });
    expect(status).toBe(200);
    expect(body.response).toBe("LLM says: 48 hours [1]");
    expect(body.sources).toContainEqual({ source: "live:stats", title: "Network stats (/stats)", section: "epochLengthSeconds" });
    const system = fakeLlm.calls.at(-1)!.messages[0]!.content;
    expect(system).toContain("Mode: rag");
    expect(system).toContain("epochLengthSeconds = 172800");
  });

  it("sends the session's earlier messages along", async () => {
    const token = await signIn(llmServer.app, alice);
    const first = await chat(llmServer.app, token, { message: "What is a pod?" });
    await chat(llmServer.app, token, { message: "And a datanet?", sessionId: first.body.sessionId });
    const messages = fakeLlm.calls.at(-1)!.messages;
    expect(messages.slice(1).map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(messages.at(-1)!.content).toBe("And a datanet?");
  });

  it("falls back to the built-in composer when the model fails", async () => {
    const token = await signIn(llmServer.app, alice);
    llmFails = true;
    try {
      const { status, body } = await chat(llmServer.app, token, { message: "How long is an epoch?" });
      expect(status).toBe(200);
      expect(body.response).toContain("**48 hours**");
    } finally {
      llmFails = false;
    }
  });
});
