import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEvalConfig, type S3StorageConfig } from "../../api/eval/config";
import { createAttachmentStorage, S3AttachmentStorage } from "../../api/eval/storage/index";
import { call, newKey, padded, PNG, startEvalHarness, T0, type EvalHarness } from "./support";

// A minimal S3 stand-in on 127.0.0.1 (path-style): PUT, HEAD and (ranged) GET of objects.
// It does not check signatures; what a real bucket would enforce is asserted on the URLs.

const objects = new Map<string, Buffer>();
const requests: { method: string; path: string }[] = [];
let s3: http.Server;
let endpoint: string;
let h: EvalHarness;

function notFound(res: http.ServerResponse, head: boolean) {
  res.writeHead(404, { "content-type": "application/xml" });
  res.end(head ? undefined : "<?xml version=\"1.0\"?><Error><Code>NoSuchKey</Code><Message>missing</Message></Error>");
}

beforeAll(async () => {
  s3 = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://s3.test");
    const objectPath = decodeURIComponent(url.pathname);
    requests.push({ method: req.method ?? "", path: objectPath });
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (req.method === "PUT") {
        objects.set(objectPath, Buffer.concat(chunks));
        res.writeHead(200, { etag: '"etag"' }).end();
        return;
      }
      const object = objects.get(objectPath);
      if (!object) return notFound(res, req.method === "HEAD");
      if (req.method === "HEAD") {
        res.writeHead(200, { "content-length": String(object.length), "content-type": "application/octet-stream" }).end();
        return;
      }
      const range = req.headers.range?.match(/^bytes=(\d+)-(\d+)$/);
      const body = range ? object.subarray(Number(range[1]), Number(range[2]) + 1) : object;
      const headers: Record<string, string> = {
        "content-length": String(body.length),
        "content-type": url.searchParams.get("response-content-type") ?? "application/octet-stream",
      };
      const disposition = url.searchParams.get("response-content-disposition");
      if (disposition) headers["content-disposition"] = disposition;
      res.writeHead(range ? 206 : 200, headers).end(body);
    });
  });
  await new Promise<void>((resolve) => s3.listen(0, "127.0.0.1", resolve));
  endpoint = `http://127.0.0.1:${(s3.address() as AddressInfo).port}`;
  h = await startEvalHarness();
});

afterAll(async () => {
  await new Promise((resolve) => s3?.close(resolve));
  await h?.close();
});

// Status and error together, so a failure shows which error came back.
const answer = (response: { status: number; body: { error?: unknown } }) => ({
  status: response.status,
  error: response.body.error,
});

const s3Env = () => ({
  EVAL_STORAGE: "s3",
  S3_BUCKET: "evals",
  S3_ENDPOINT: endpoint,
  S3_REGION: "us-east-1",
  S3_ACCESS_KEY_ID: "test-access",
  S3_SECRET_ACCESS_KEY: "test-secret",
  S3_FORCE_PATH_STYLE: "true",
  S3_PREFIX: "t/",
});

describe("S3 storage configuration", () => {
  it("is selected by EVAL_STORAGE=s3 and needs a bucket", () => {
    expect(createAttachmentStorage(loadEvalConfig(s3Env()))).toBeInstanceOf(S3AttachmentStorage);
    expect(() => loadEvalConfig({ EVAL_STORAGE: "s3" })).toThrow(/S3_BUCKET: required/);
    expect(() => loadEvalConfig({ EVAL_STORAGE: "s3", S3_BUCKET: "b", S3_ACCESS_KEY_ID: "only-one" })).toThrow(
      /S3_SECRET_ACCESS_KEY/,
    );
    expect(() => loadEvalConfig({ EVAL_STORAGE: "ftp" })).toThrow(/EVAL_STORAGE/);
  });
});

describe("S3 storage", () => {
  it("presigns a PUT-only upload URL and a GET download URL, both valid 5 minutes", async () => {
    const storage = new S3AttachmentStorage(loadEvalConfig(s3Env()).storage as S3StorageConfig);
    const upload = new URL(await storage.uploadUrl("att_x", { baseUrl: "unused", now: T0, expiresInSeconds: 300 }));
    expect(upload.pathname).toBe("/evals/t/uploads/att_x");
    expect(upload.searchParams.get("X-Amz-Expires")).toBe("300");
    expect(upload.searchParams.get("X-Amz-Date")).toBe("20300101T000000Z");
    expect(upload.searchParams.get("X-Amz-Signature")).toMatch(/^[0-9a-f]{64}$/);

    const download = new URL(
      await storage.downloadUrl("att_x", {
        baseUrl: "unused",
        now: T0,
        expiresInSeconds: 300,
        filename: "résumé.pdf",
        contentType: "application/pdf",
      }),
    );
    expect(download.pathname).toBe("/evals/t/sealed/att_x");
    expect(download.searchParams.get("X-Amz-Expires")).toBe("300");
    expect(download.searchParams.get("response-content-type")).toBe("application/pdf");
    expect(download.searchParams.get("response-content-disposition")).toContain("filename*=UTF-8''r%C3%A9sum%C3%A9.pdf");
    // The signature covers the method: a PUT URL and a GET URL for the same key differ.
    expect(upload.searchParams.get("X-Amz-Signature")).not.toBe(download.searchParams.get("X-Amz-Signature"));
  });

  it("runs the attachment flow against the bucket: upload, 2 MB check, type sniffing, sealing, download", async () => {
    const storage = createAttachmentStorage(loadEvalConfig(s3Env()));
    const app = h.buildApp(s3Env());
    const owner = await newKey(h, "s3-owner");
    const peer = await newKey(h, "s3-peer");

    const upload = await call(app, "POST", "/agents/eval-requests/attachments", {
      key: owner,
      body: { filename: "s3.png", contentType: "image/png" },
    });
    expect(upload.status).toBe(200);
    const attachmentKey = upload.body.key as string;
    const ref = { key: attachmentKey, filename: "s3.png", contentType: "image/png" };

    const missing = await call(app, "POST", "/agents/eval-requests/submit", {
      key: owner,
      body: { type: "answer", payload: "p", criteria: [], attachments: [ref] },
    });
    expect(answer(missing)).toEqual({ status: 400, error: expect.stringMatching(/not uploaded/) });

    // Presigned PUTs cannot cap the size: an oversized object is refused at submit.
    expect((await fetch(upload.body.uploadUrl as string, { method: "PUT", body: padded(PNG, 2 * 1024 * 1024 + 1) })).status).toBe(200);
    const tooBig = await call(app, "POST", "/agents/eval-requests/submit", {
      key: owner,
      body: { type: "answer", payload: "p", criteria: [], attachments: [ref] },
    });
    expect(answer(tooBig)).toEqual({ status: 400, error: expect.stringMatching(/larger than 2 MB/) });

    await fetch(upload.body.uploadUrl as string, { method: "PUT", body: Buffer.from("GIF89a not a png") });
    const wrongType = await call(app, "POST", "/agents/eval-requests/submit", {
      key: owner,
      body: { type: "answer", payload: "p", criteria: [], attachments: [ref] },
    });
    expect(answer(wrongType)).toEqual({ status: 400, error: expect.stringMatching(/image\/gif, not the declared image\/png/) });

    await fetch(upload.body.uploadUrl as string, { method: "PUT", body: PNG });
    const created = await call(app, "POST", "/agents/eval-requests/submit", {
      key: owner,
      body: { type: "answer", payload: "s3 flow", criteria: [], attachments: [ref] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(objects.get(`/evals/t/sealed/${attachmentKey}`)?.equals(PNG)).toBe(true);
    expect(await storage.readSealed(attachmentKey)).toEqual(new Uint8Array(PNG));

    const pending = await call(app, "GET", "/agents/eval-requests/pending", { key: peer });
    const item = (pending.body.items as { evalId: string; attachments: { downloadUrl: string }[] }[]).find(
      (i) => i.evalId === created.body.evalId,
    )!;
    const download = await fetch(item.attachments[0]!.downloadUrl);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await download.arrayBuffer()).equals(PNG)).toBe(true);
    // Reads of the upload are capped at 2 MB + 1 byte.
    expect(requests.some((r) => r.method === "GET" && r.path.endsWith(`uploads/${attachmentKey}`))).toBe(true);
  });

  it("a bucket it cannot reach is a 503 naming the storage, and the submit stores nothing", async () => {
    // Nothing listens on port 9 (discard). A port freed by closing a server could be taken again by
    // another process of a busy machine before the request.
    const app = h.buildApp({ ...s3Env(), S3_ENDPOINT: "http://127.0.0.1:9" });
    const owner = await newKey(h, "s3-dead-bucket");

    const upload = await call(app, "POST", "/agents/eval-requests/attachments", {
      key: owner,
      body: { filename: "dead.png", contentType: "image/png" },
    });
    expect(upload.status).toBe(200); // presigning needs no bucket
    const submit = await call(app, "POST", "/agents/eval-requests/submit", {
      key: owner,
      headers: { "idempotency-key": "dead-bucket-1" },
      body: {
        type: "answer",
        payload: "p",
        criteria: [],
        attachments: [{ key: upload.body.key, filename: "dead.png", contentType: "image/png" }],
      },
    });
    expect(answer(submit)).toEqual({ status: 503, error: "Attachment storage unavailable" });
    const stored = await h.store.pool.query(
      "SELECT count(*)::int AS n FROM offchain.evaluations e JOIN offchain.eval_accounts a ON a.id = e.account_id WHERE a.name = $1",
      ["s3-dead-bucket"],
    );
    expect(stored.rows[0].n).toBe(0);
  });
});
