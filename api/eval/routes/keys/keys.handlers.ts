import type { EvalHandler } from "../../app-services";
import { issueKeyForNewAccount } from "../../repositories/keys";
import type * as routes from "./keys.routes";

export const DEFAULT_ACCOUNT_NAME = "anonymous";

export const issueKey: EvalHandler<typeof routes.issueKeyRoute> = async (c) => {
  const ctx = c.get("services");
  const body = c.req.valid("json");
  const issued = await issueKeyForNewAccount(ctx.db, body.name?.trim() || DEFAULT_ACCOUNT_NAME, "POST /keys");
  ctx.logger.info({ accountId: issued.accountId, keyId: issued.keyId }, "api key issued");
  return c.json(
    {
      key: issued.key,
      keyId: issued.keyId,
      accountId: issued.accountId,
      accountName: issued.accountName,
      createdAt: issued.createdAt.toISOString(),
    },
    201,
  );
};
