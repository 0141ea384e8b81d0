/** Webhook subscription handlers: the caller's own subscriptions only (another agent's are 404). */
import type { PlatformHandler } from "../../app-services";
import {
  createWebhook as create,
  deleteWebhook as remove,
  listWebhooks as list,
  presentWebhook,
  requireOwnWebhook,
  resumeWebhook as resume,
} from "../../services/webhooks";
import type * as routes from "./webhooks.routes";

export const createWebhook: PlatformHandler<typeof routes.createWebhookRoute> = async (c) => {
  const agent = c.get("agent");
  const { db, platform, viewsSchema } = c.get("services");
  const body = c.req.valid("json");
  const row = await create(db, {
    agentId: agent.id,
    config: platform.config.webhooks,
    viewsSchema,
    url: body.url,
    filters: {
      kinds: body.kinds ?? [],
      datanet: body.datanet === undefined ? undefined : BigInt(body.datanet),
      pod: body.pod === undefined ? undefined : BigInt(body.pod),
      wallet: body.wallet,
    },
    replay: body.replay ?? false,
  });
  return c.json({ data: { ...presentWebhook(row), secret: row.secret } }, 201);
};

export const listWebhooks: PlatformHandler<typeof routes.listWebhooksRoute> = async (c) => {
  const rows = await list(c.get("services").db, c.get("agent").id);
  return c.json({ data: rows.map(presentWebhook) }, 200);
};

export const getWebhook: PlatformHandler<typeof routes.getWebhookRoute> = async (c) => {
  const row = await requireOwnWebhook(c.get("services").db, c.get("agent").id, c.req.valid("param").webhookId);
  return c.json({ data: presentWebhook(row) }, 200);
};

export const deleteWebhook: PlatformHandler<typeof routes.deleteWebhookRoute> = async (c) => {
  await remove(c.get("services").db, c.get("agent").id, c.req.valid("param").webhookId);
  return c.json({ data: { success: true as const } }, 200);
};

export const resumeWebhook: PlatformHandler<typeof routes.resumeWebhookRoute> = async (c) => {
  const row = await resume(c.get("services").db, c.get("agent").id, c.req.valid("param").webhookId);
  return c.json({ data: presentWebhook(row) }, 200);
};
