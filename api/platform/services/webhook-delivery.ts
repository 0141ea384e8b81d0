/**
 * One webhook delivery: a signed JSON POST to the subscription's URL, only to public addresses
 * (lib/public-address; the address is checked again at each delivery, on the very answer the
 * connection uses), with a deadline, no redirects followed. Headers (docs/webhooks.md):
 * `X-Webhook-Id`, `X-Webhook-Event`, `X-Webhook-Subscription`, `X-Webhook-Timestamp` (Unix
 * seconds) and `X-Webhook-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">`.
 */
import { createHmac } from "node:crypto";
import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import type { WebhookMessage } from "../../db/offchain";
import { checkedLookup, resolvePublicAddresses, type AddressPolicy } from "../../lib/public-address";

export const SIGNATURE_HEADER = "x-webhook-signature";
export const TIMESTAMP_HEADER = "x-webhook-timestamp";
const USER_AGENT = "datamarket-webhooks/1";
/** Bytes of a receiver's answer read (and dropped) at most. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** The hex HMAC-SHA256 of `${timestamp}.${body}` under the subscription's secret. */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  return createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
}

/** The id a receiver deduplicates by: the event's id, or `retraction:<id>` for a retraction. */
export const deliveryIdOf = (message: WebhookMessage) =>
  message.event === "retraction" ? `retraction:${message.id}` : message.id;

export type DeliveryOutcome = { ok: true; status: number } | { ok: false; error: string; aborted?: boolean };

/** Connection pools of one worker (closed with it). */
export interface DeliveryAgents {
  http: http.Agent;
  https: https.Agent;
}

export function createDeliveryAgents(): DeliveryAgents {
  return { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
}

export function closeDeliveryAgents(agents: DeliveryAgents): void {
  agents.http.destroy();
  agents.https.destroy();
}

export async function deliverWebhook(
  target: { id: string; url: string; secret: string },
  message: WebhookMessage,
  options: { timeoutMs: number; policy: AddressPolicy; agents: DeliveryAgents; signal: AbortSignal; now?: () => number },
): Promise<DeliveryOutcome> {
  const url = new URL(target.url);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host) !== 0) {
    // node connects to an IP literal without a lookup: check it here
    try {
      await resolvePublicAddresses(host, options.policy);
    } catch (error) {
      return { ok: false, error: (error as Error).message };
    }
  }
  const timestamp = Math.floor((options.now ?? Date.now)() / 1000);
  const body = Buffer.from(message.body, "utf8");
  const secure = url.protocol === "https:";
  return new Promise<DeliveryOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: DeliveryOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      options.signal.removeEventListener("abort", onAbort);
      resolve(outcome);
    };
    const request = (secure ? https : http).request(url, {
      method: "POST",
      agent: secure ? options.agents.https : options.agents.http,
      lookup: checkedLookup(options.policy),
      headers: {
        "content-type": "application/json",
        "content-length": String(body.byteLength),
        "user-agent": USER_AGENT,
        "x-webhook-id": deliveryIdOf(message),
        "x-webhook-event": message.event,
        "x-webhook-subscription": target.id,
        [TIMESTAMP_HEADER]: String(timestamp),
        [SIGNATURE_HEADER]: `sha256=${signWebhook(target.secret, timestamp, message.body)}`,
      },
    });
    const deadline = setTimeout(() => {
      request.destroy();
      finish({ ok: false, error: `no answer within ${options.timeoutMs} ms` });
    }, options.timeoutMs);
    const onAbort = () => {
      request.destroy();
      finish({ ok: false, error: "stopped", aborted: true });
    };
    options.signal.addEventListener("abort", onAbort);
    if (options.signal.aborted) return onAbort();
    request.on("error", (error) => finish({ ok: false, error: `request failed: ${error.message}` }));
    request.on("response", (response) => {
      const status = response.statusCode ?? 0;
      let read = 0;
      response.on("data", (chunk: Buffer) => {
        read += chunk.byteLength;
        if (read > MAX_ANSWER_BYTES) response.destroy();
      });
      const done = () => {
        if (status >= 200 && status < 300) finish({ ok: true, status });
        else if (status >= 300 && status < 400) finish({ ok: false, error: `HTTP ${status} (redirects are not followed)` });
        else finish({ ok: false, error: `HTTP ${status}` });
      };
      response.on("end", done);
      response.on("close", done);
      response.on("error", done);
    });
    request.end(body);
  });
}
