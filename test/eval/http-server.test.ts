import fs from "node:fs";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { serve, type ServerType } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEvalSettlementWorker } from "../../api/eval/app";
import type { SettlementWorker } from "../../api/eval/settlement/worker";
import { createLogger } from "../../api/http/logger";
import { newKey, padded, PNG, startEvalHarness, type EvalHarness } from "./support";

// The Evaluation API over real sockets, the way `npm start` serves it, with the
// settlement worker polling in the background (on the test clock).

let h: EvalHarness;
let server: ServerType;
let baseUrl: string;
let worker: SettlementWorker;

beforeAll(async () => {
  h = await startEvalHarness();
  await new Promise<void>((resolve) => {
    server = serve({ fetch: h.app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve());
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  worker = createEvalSettlementWorker({
    db: h.store.db,
    logger: createLogger("silent"),
    evalConfig: { ...h.evalConfig, worker: { enabled: true, pollSeconds: 1 } },
    storage: h.storage,
    now: h.clock.now,
  })!;
  worker.start();
});

afterAll(async () => {
  await worker?.stop();
  await new Promise((resolve) => {
    server?.close(resolve);
    if (server && "closeAllConnections" in server) server.closeAllConnections();
  });
  await h?.close();
});

async function api(path: string, init: RequestInit & { key?: string } = {}) {
  const headers = new Headers(init.headers);
  if (init.key) headers.set("x-api-key", init.key);
  if (typeof init.body === "string") headers.set("content-type", "application/json");
  const response = await fetch(`${baseUrl}${path}`, { ...init, headers });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

describe("the Evaluation API over HTTP", () => {
  it("runs the whole flow: key, upload, submit, pending, assess, settle, read", async () => {
    const issued = await api("/keys", { method: "POST", body: JSON.stringify({ name: "http-owner" }) });
    expect(issued.status).toBe(201);
    const owner = issued.body.key as string;
    const peer = await newKey(h, "http-peer");

    const upload = await api("/agents/eval-requests/attachments", {
      method: "POST",
      key: owner,
      body: JSON.stringify({ filename: "plot.png", contentType: "image/png" }),
    });
    expect(upload.status).toBe(200);
    expect(upload.body.uploadUrl).toMatch(new RegExp(`^${baseUrl}/storage/uploads/att_`));
    const put = await fetch(upload.body.uploadUrl, { method: "PUT", body: PNG });
    expect(put.status).toBe(200);
    expect((await fetch(upload.body.uploadUrl, { method: "POST", body: PNG })).status).toBe(405);

    const submitted = await api("/agents/eval-requests/submit", {
      method: "POST",
      key: owner,
      body: JSON.stringify({
        type: "artifact",
        payload: "A plot of monthly revenue.",
        criteria: [],
        attachments: [{ key: upload.body.key, filename: "plot.png", contentType: "image/png" }],
        settlementMinutes: 10,
      }),
    });
    expect(submitted.status).toBe(201);
    const evalId = submitted.body.evalId as string;

    const pending = await api("/agents/eval-requests/pending", { key: peer });
    const item = pending.body.items.find((i: { evalId: string }) => i.evalId === evalId);
    const download = await fetch(item.attachments[0].downloadUrl);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(PNG)).toBe(true);

    const assessed = await api(`/agents/eval-requests/${evalId}/assessments`, {
      method: "POST",
      key: peer,
      body: JSON.stringify({ agentName: "a", modelName: "m", score: 74, decision: "accept", critique: "Readable plot." }),
    });
    expect(assessed.status).toBe(201);

    h.clock.advanceMinutes(10);
    const deadline = Date.now() + 30_000;
    let read = await api(`/agents/eval-requests/${evalId}`, { key: owner });
    while (read.body.status === "PENDING" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      read = await api(`/agents/eval-requests/${evalId}`, { key: owner });
    }
    expect(read.body).toMatchObject({ status: "SETTLED", score: 100, peerAssessmentCount: 1 });
    expect(read.body.verdict).toMatchObject({ score: 74, decision: "accept" });
    expect(read.body.verdict.provenance.criteriaSource).toBe("service");
  });

  it("answers an oversized upload with 413 over a real socket, keeping at most 2 MB + 1 byte", async () => {
    const owner = await newKey(h, "big-uploader");
    const upload = await api("/agents/eval-requests/attachments", {
      method: "POST",
      key: owner,
      body: JSON.stringify({ filename: "big.png", contentType: "image/png" }),
    });
    const response = await fetch(upload.body.uploadUrl, { method: "PUT", body: padded(PNG, 6 * 1024 * 1024) }).catch(
      (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
    );
    // Node may cut the connection once the answer is sent; when the client sees the answer it is a 413.
    // (Not `instanceof Response`: @hono/node-server replaces the global Response, fetch's is another class.)
    if (!(response instanceof Error)) {
      expect(response.status).toBe(413);
      expect(await response.json()).toEqual({ error: "Attachment larger than 2 MB; it will be rejected at submit" });
    }
    const kept = fs.statSync(path.join(h.storageDir, "uploads", upload.body.key)).size;
    expect(kept).toBe(2 * 1024 * 1024 + 1);
    const submitted = await api("/agents/eval-requests/submit", {
      method: "POST",
      key: owner,
      body: JSON.stringify({
        type: "answer",
        payload: "p",
        criteria: ["c"],
        attachments: [{ key: upload.body.key, filename: "big.png", contentType: "image/png" }],
      }),
    });
    expect(submitted.status).toBe(400);
    expect(submitted.body.error).toMatch(/larger than 2 MB/);
  });

  it("refuses an over-large JSON body with 413 before parsing it", async () => {
    const owner = await newKey(h, "big-body");
    const response = await api("/agents/eval-requests/submit", {
      method: "POST",
      key: owner,
      body: JSON.stringify({ type: "answer", payload: "x".repeat(3 * 1024 * 1024), criteria: [] }),
    });
    expect(response.status).toBe(413);
    expect(response.body).toEqual({ error: "Payload too large" });
  });
});
