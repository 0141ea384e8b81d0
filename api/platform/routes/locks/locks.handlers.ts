/** Lock handlers. */
import type { PlatformHandler } from "../../app-services";
import { presentLock } from "../../presenters/engagement";
import * as locks from "../../repositories/locks";
import type * as routes from "./locks.routes";

export const listLocks: PlatformHandler<typeof routes.listLocksRoute> = async (c) => {
  const rows = await locks.listOwnedLocks(c.get("services").db, c.req.valid("param").address);
  return c.json({ data: { locks: rows.map(presentLock) } }, 200);
};
