import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIGNING_SECRET_FILE } from "../../api/eval/storage/local";
import {
  call,
  countRows,
  errorOf,
  JPEG,
  newKey,
  padded,
  PDF,
  PNG,
  put,
  requestUpload,
  startEvalHarness,
  submit,
  uploadAttachment,
  WEBP,
  type EvalHarness,
} from "./support";

let h: EvalHarness;
let owner: string;
let peer: string;

const MB = 1024 * 1024;

beforeAll(async () => {
  h = await startEvalHarness();
  owner = await newKey(h, "owner");
  peer = await newKey(h, "peer");
});

afterAll(async () => {
  await h?.close();
});

describe("POST /agents/eval-requests/attachments", () => {
  it("answers a key and an upload URL valid 5 minutes", async () => {
    const result = await requestUpload(h, owner, "chart.png", "image/png");
    expect(result.status).toBe(200);
    expect(Object.keys(result.body).sort()).toEqual(["expiresAt", "key", "uploadUrl"]);
    expect(result.body.key).toMatch(/^att_[0-9a-f]{32}$/);
    expect(result.body.expiresAt).toBe(new Date(h.clock.now().getTime() + 5 * 60_000).toISOString());
    const url = new URL(result.body.uploadUrl as string);
    expect(url.pathname).toBe(`/api/v1/storage/uploads/${result.body.key}`);
    expect(Number(url.searchParams.get("expires")) * 1000).toBe(h.clock.now().getTime() + 5 * 60_000);
  });

  it("builds URLs on EVAL_PUBLIC_URL when set", async () => {
    const app = h.buildApp({ EVAL_PUBLIC_URL: "https://eval.example.test/api/v1/" });
    const result = await call(app, "POST", "/agents/eval-requests/attachments", {
      key: owner,
      body: { filename: "a.pdf", contentType: "application/pdf" },
    });
    expect(String(result.body.uploadUrl)).toMatch(/^https:\/\/eval\.example\.test\/api\/v1\/storage\/uploads\/att_/);
  });

  it("bounds the filename at 1 to 255 characters and accepts only the four types", async () => {
    expect((await requestUpload(h, owner, "é".repeat(255), "image/png")).status).toBe(200);
    expect((await requestUpload(h, owner, "a", "image/jpeg")).status).toBe(200);
    expect((await requestUpload(h, owner, "a.webp", "image/webp")).status).toBe(200);
    expect((await requestUpload(h, owner, "a.pdf", "application/pdf")).status).toBe(200);
    const before = await countRows(h, "eval_attachments");
    for (const [filename, contentType, field] of [
      ["", "image/png", "filename"],
      ["x".repeat(256), "image/png", "filename"],
      ["   ", "image/png", "filename"],
      ["a\nb.png", "image/png", "filename"],
      ["a.gif", "image/gif", "contentType"],
      ["a.svg", "image/svg+xml", "contentType"],
      ["a.png", "IMAGE/PNG", "contentType"],
    ] as const) {
      const result = await requestUpload(h, owner, filename, contentType);
      expect(result.status).toBe(400);
      expect(errorOf(result)).toMatch(new RegExp(`^${field}: `));
    }
    expect(await countRows(h, "eval_attachments")).toBe(before);
  });

  it("persists a generated URL-signing secret in the store's directory", () => {
    const secret = fs.readFileSync(path.join(h.storageDir, SIGNING_SECRET_FILE), "utf8");
    expect(secret.length).toBeGreaterThanOrEqual(32);
  });
});

describe("the upload URL", () => {
  it("accepts PUT only", async () => {
    const upload = await requestUpload(h, owner);
    const url = upload.body.uploadUrl as string;
    for (const method of ["GET", "POST", "DELETE", "PATCH"]) {
      const result = await put(h, url, PNG, method);
      expect(result.status, method).toBe(405);
      expect(result.headers.get("allow")).toBe("PUT");
      expect(Object.keys(result.body)).toEqual(["error"]);
    }
    expect((await put(h, url, PNG)).status).toBe(200);
  });

  it("refuses a tampered signature, another key, and a URL past its 5 minutes", async () => {
    const upload = await requestUpload(h, owner);
    const url = new URL(upload.body.uploadUrl as string);
    const tampered = new URL(url);
    tampered.searchParams.set("signature", `${url.searchParams.get("signature")!.slice(0, -2)}xx`);
    expect((await put(h, tampered.toString(), PNG)).status).toBe(403);
    const longer = new URL(url);
    longer.searchParams.set("expires", String(Number(url.searchParams.get("expires")) + 3600));
    expect((await put(h, longer.toString(), PNG)).status).toBe(403);
    const otherKey = url.toString().replace(/att_[0-9a-f]{32}/, `att_${"0".repeat(32)}`);
    expect((await put(h, otherKey, PNG)).status).toBe(403);
    const unsigned = `${url.origin}${url.pathname}`;
    expect((await put(h, unsigned, PNG)).status).toBe(403);

    h.clock.advance(5 * 60_000); // exactly at expiry: still valid
    expect((await put(h, url.toString(), PNG)).status).toBe(200);
    h.clock.advance(1_000);
    const expired = await put(h, url.toString(), PNG);
    expect(expired.status).toBe(403);
    expect(expired.body).toEqual({ error: "URL expired" });
  });

  it("takes exactly 2 MB, and answers 413 beyond it (the file is then refused at submit)", async () => {
    const exact = await uploadAttachment(h, owner, padded(PNG, 2 * MB));
    expect(exact.stored.status).toBe(200);
    expect(exact.stored.body).toEqual({ key: exact.ref.key, size: 2 * MB });
    expect((await submit(h, owner, { attachments: [exact.ref] })).status).toBe(201);

    const over = await uploadAttachment(h, owner, padded(PNG, 2 * MB + 1));
    expect(over.stored.status).toBe(413);
    const kept = fs.statSync(path.join(h.storageDir, "uploads", over.ref.key)).size;
    expect(kept).toBe(2 * MB + 1); // capped: never more than 2 MB + 1 byte on disk

    const farOver = await uploadAttachment(h, owner, padded(PNG, 5 * MB));
    expect(farOver.stored.status).toBe(413);
    expect(fs.statSync(path.join(h.storageDir, "uploads", farOver.ref.key)).size).toBe(2 * MB + 1);

    const before = await countRows(h, "evaluations");
    for (const ref of [over.ref, farOver.ref]) {
      const result = await submit(h, owner, { attachments: [ref] });
      expect(result.status).toBe(400);
      expect(errorOf(result)).toMatch(/^attachments\.0: the file is larger than 2 MB/);
    }
    expect(await countRows(h, "evaluations")).toBe(before);
  });
});

describe("attachments at submit", () => {
  it("accepts PNG, JPEG, WebP and PDF by their bytes", async () => {
    for (const [bytes, filename, contentType] of [
      [PNG, "a.png", "image/png"],
      [JPEG, "a.jpg", "image/jpeg"],
      [WEBP, "a.webp", "image/webp"],
      [PDF, "a.pdf", "application/pdf"],
    ] as const) {
      const { ref } = await uploadAttachment(h, owner, bytes, filename, contentType);
      const result = await submit(h, owner, { attachments: [ref] });
      expect(result.status, contentType).toBe(201);
    }
  });

  it("judges the type by magic bytes, not by the name", async () => {
    const cases = [
      [JPEG, "photo.png", "image/png", /content is image\/jpeg, not the declared image\/png/],
      [PNG, "doc.pdf", "application/pdf", /content is image\/png, not the declared application\/pdf/],
      [Buffer.from("just some text, named like a picture"), "pic.png", "image/png", /of no recognised type/],
      [Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>"), "x.webp", "image/webp", /not the declared image\/webp/],
    ] as const;
    for (const [bytes, filename, contentType, message] of cases) {
      const { ref } = await uploadAttachment(h, owner, bytes, filename, contentType);
      const before = await countRows(h, "evaluations");
      const result = await submit(h, owner, { attachments: [ref] });
      expect(result.status).toBe(400);
      expect(errorOf(result)).toMatch(message);
      expect(await countRows(h, "evaluations")).toBe(before);
    }
    // A PNG named .pdf but declared image/png is fine: the name does not matter.
    const { ref } = await uploadAttachment(h, owner, PNG, "looks-like.pdf", "image/png");
    expect((await submit(h, owner, { attachments: [ref] })).status).toBe(201);
  });

  it("refuses a missing upload, an empty file, a type other than requested, another account's key and re-use", async () => {
    const never = await requestUpload(h, owner);
    const missing = await submit(h, owner, {
      attachments: [{ key: never.body.key, filename: "chart.png", contentType: "image/png" }],
    });
    expect(missing.status).toBe(400);
    expect(errorOf(missing)).toMatch(/^attachments\.0: the file was not uploaded/);

    const empty = await uploadAttachment(h, owner, new Uint8Array());
    expect(errorOf(await submit(h, owner, { attachments: [empty.ref] }))).toMatch(/empty/);

    const typed = await uploadAttachment(h, owner, PNG);
    const mismatch = await submit(h, owner, { attachments: [{ ...typed.ref, contentType: "image/jpeg" }] });
    expect(mismatch.status).toBe(400);
    expect(errorOf(mismatch)).toMatch(/^attachments\.0\.contentType: the upload was requested as image\/png/);

    const stolen = await submit(h, peer, { attachments: [typed.ref] });
    expect(stolen.status).toBe(400);
    expect(errorOf(stolen)).toMatch(/unknown attachment key/);

    expect((await submit(h, owner, { attachments: [typed.ref] })).status).toBe(201);
    const reuse = await submit(h, owner, { attachments: [typed.ref] });
    expect(reuse.status).toBe(409);
    expect(errorOf(reuse)).toMatch(/already part of another evaluation/);
  });

  it("binds one upload to one evaluation when two submits race", async () => {
    const { ref } = await uploadAttachment(h, owner, PNG);
    const results = await Promise.all([submit(h, owner, { attachments: [ref] }), submit(h, owner, { attachments: [ref] })]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
  });

  it("seals the checked bytes: re-uploading afterwards changes nothing peers download", async () => {
    const upload = await requestUpload(h, owner, "sealed.png", "image/png");
    await put(h, upload.body.uploadUrl as string, PNG);
    const ref = { key: upload.body.key as string, filename: "sealed.png", contentType: "image/png" };
    const created = await submit(h, owner, { attachments: [ref], payload: "sealed attachment" });
    expect(created.status).toBe(201);
    expect((await put(h, upload.body.uploadUrl as string, Buffer.from("replaced"))).status).toBe(200);

    const read = await call(h.app, "GET", `/agents/eval-requests/${created.body.evalId}`, { key: owner });
    expect(read.body.attachments).toEqual([{ filename: "sealed.png", contentType: "image/png" }]);

    const pending = await call(h.app, "GET", "/agents/eval-requests/pending?pageSize=100", { key: peer });
    const item = (pending.body.items as { evalId: string; attachments: { downloadUrl: string }[] }[]).find(
      (i) => i.evalId === created.body.evalId,
    )!;
    expect(item.attachments).toHaveLength(1);
    const download = await h.app.request(item.attachments[0]!.downloadUrl);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("image/png");
    expect(download.headers.get("content-disposition")).toContain("sealed.png");
    expect(Buffer.from(await download.arrayBuffer()).equals(PNG)).toBe(true);
  });
});

describe("the download URL", () => {
  it("is signed, GET only, and expires after 5 minutes", async () => {
    const { ref } = await uploadAttachment(h, owner, PDF, "report.pdf", "application/pdf");
    const created = await submit(h, owner, { attachments: [ref], payload: "download expiry" });
    const pending = await call(h.app, "GET", "/agents/eval-requests/pending?pageSize=100", { key: peer });
    const item = (pending.body.items as { evalId: string; attachments: { filename: string; contentType: string; downloadUrl: string }[] }[]).find(
      (i) => i.evalId === created.body.evalId,
    )!;
    expect(item.attachments[0]).toMatchObject({ filename: "report.pdf", contentType: "application/pdf" });
    const url = item.attachments[0]!.downloadUrl;

    expect((await h.app.request(url, { method: "PUT", body: "x" })).status).toBe(405);
    const forged = new URL(url);
    forged.searchParams.set("contentType", "text/html");
    expect((await h.app.request(forged.toString())).status).toBe(403);

    h.clock.advance(5 * 60_000 + 1_000);
    const expired = await h.app.request(url);
    expect(expired.status).toBe(403);
    expect(await expired.json()).toEqual({ error: "URL expired" });
  });
});
