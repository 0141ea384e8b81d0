import type { OpenAPIHono, RouteHandler } from "@hono/zod-openapi";
import type { Hash } from "viem";
import { SubnetManagerAbi } from "../../../../abis";
import { parseTokenAmount } from "../../../../chain/units";
import type { UserEnv } from "../../../http/auth/idp-cookie";
import { badRequest, notFound } from "../../../http/errors";
import type { AppEnv } from "../../../http/types";
import { userAuth } from "../../agents-auth";
import type { AgentsDeps } from "../../agents-config";
import { createPlatformRouter, platformContext, requireWallet, verifyOnChain } from "../../context";
import { assertTransactionUnused, findSubnetRef, publishedTokenId } from "../../services/votes";
import { IDP_COOKIE_SCHEME } from "../subnets/routes";
import { insertBoost } from "./queries";
import { boostRoute } from "./routes";

/** POST /stakes/boost. */
export function createStakesRouter(deps: AgentsDeps): OpenAPIHono<AppEnv> {
  const router = createPlatformRouter();
  router.openAPIRegistry.registerComponent("securitySchemes", "idpCookie", IDP_COOKIE_SCHEME);
  router.openapi({ ...boostRoute, middleware: userAuth(deps) }, createBoost(deps));
  return router;
}

/** The txHash must be a `boost` by the caller's wallet of exactly `amount` on the datanet. */
export function createBoost(deps: AgentsDeps): RouteHandler<typeof boostRoute, UserEnv> {
  const context = platformContext(deps);
  return async (c) => {
    const body = c.req.valid("json");
    const user = c.get("user");
    const wallet = requireWallet(user);
    const amount = parseTokenAmount(body.amount);
    if (amount === undefined || amount === 0n) throw badRequest("amount: must be a positive decimal string");
    const subnet = await findSubnetRef(deps.db, body.subnetId, { userId: user.id });
    if (!subnet) throw notFound("Datanet not found");
    const subnetTokenId = publishedTokenId(subnet);
    await assertTransactionUnused(deps.db, body.txHash as Hash);
    const { event } = await verifyOnChain(context, {
      hash: body.txHash as Hash,
      from: wallet,
      contract: { address: context.chain().protocol.contracts.SubnetManager.address, name: "SubnetManager" },
      abi: SubnetManagerAbi,
      eventName: "SubnetBoosted",
      matches: (args) =>
        args.subnetId === subnetTokenId && args.staker.toLowerCase() === wallet.toLowerCase() && args.amount === amount,
      describe: "the datanet and amount of the request",
    });
    const id = await insertBoost(deps.db, {
      userId: user.id,
      subnetId: subnet.key,
      subnetTokenId: subnetTokenId.toString(),
      staker: event.args.staker.toLowerCase(),
      amount: body.amount,
      amountRaw: amount.toString(),
      txHash: body.txHash as Hash,
    });
    return c.json({ data: { id } }, 201);
  };
}
