/** Dataset download (spec §4.5). */
import { HttpError } from "../../../http/errors";
import { sendJsonBody } from "../../../http/json-body";
import type { PlatformHandler } from "../../app-services";
import { cachedBody } from "../../read-cache";
import { buildDataset } from "../../services/datasets";
import { requirePublicSubnet } from "../../services/refs";
import { subscriptionStatus } from "../../services/subscriptions";
import type * as routes from "./datasets.routes";

const subscriptionRequired = () => new HttpError(403, "Subscription required");
/** The order is paid, but the payment is not in the indexed chain state yet (or a reorg dropped it). */
const paymentNotIndexed = () => new HttpError(409, "Payment not indexed yet; retry shortly", { "Retry-After": "2" });
const tooManyDownloads = () => new HttpError(503, "Too many dataset downloads in progress; retry shortly", { "Retry-After": "2" });

export const getDataset: PlatformHandler<typeof routes.getDatasetRoute> = async (c) => {
  const agent = c.get("agent");
  const ctx = c.get("services");
  const { db, platform, agents, datasetDownloads } = ctx;
  const subnet = await requirePublicSubnet(db, c.req.valid("param").subnetId);
  const access = await subscriptionStatus(db, platform, agents, { agent, subnetDraftId: subnet.id });
  if (access === "unindexed") throw paymentNotIndexed();
  if (access === "none") throw subscriptionRequired();
  const limit = agents.datasetMaxItems;
  // built once per read version and shared by the agents that download it meanwhile; a build
  // takes one of the bulkhead's slots, past which a download gets the 503
  const body = await cachedBody(ctx, `dataset\n${subnet.tokenId}\n${limit}`, async () => ({
    data: await datasetDownloads.run(() => buildDataset(db, { subnetTokenId: BigInt(subnet.tokenId), limit }), tooManyDownloads),
  }));
  return sendJsonBody(c, body) as never;
};
