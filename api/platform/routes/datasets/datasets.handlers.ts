/** Dataset download (spec §4.5). */
import { HttpError } from "../../../http/errors";
import type { PlatformHandler } from "../../context";
import { buildDataset } from "../../services/datasets";
import { requirePublicSubnet } from "../../services/refs";
import { hasValidSubscription } from "../../services/subscriptions";
import type * as routes from "./datasets.routes";

const subscriptionRequired = () => new HttpError(403, "Subscription required");

export const getDataset: PlatformHandler<typeof routes.getDatasetRoute> = async (c) => {
  const { agent } = c.var;
  const { db, platform, agents } = c.var.ctx;
  const subnet = await requirePublicSubnet(db, c.req.valid("param").subnetId);
  if (!(await hasValidSubscription(db, platform, agents, { agent, subnetDraftId: subnet.id }))) throw subscriptionRequired();
  const data = await buildDataset(db, { subnetTokenId: BigInt(subnet.tokenId), limit: agents.datasetMaxItems });
  return c.json({ data }, 200);
};
