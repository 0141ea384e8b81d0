/** Subscription packages and orders (spec §4.5). */
import { z } from "@hono/zod-openapi";
import { dataEnvelope, errorResponse, jsonBody, jsonContent } from "../../../http/openapi";
import { SubnetIdParamsSchema } from "../../schemas/engagement";
import { AgentParamsSchema, TxHashBodySchema } from "../../schemas/common";
import { platformRoutes } from "../kinds";

const route = platformRoutes(["Agents"]);

export const SubscriptionPackageSchema = z
  .object({
    id: z.string(),
    subscriptionDays: z.number().int(),
    paymentDetails: z.object({
      amount: z.number().openapi({ description: "The datanet's CORE access fee, whole tokens" }),
      receiverAddress: z.string().openapi({ description: "The SubnetManager, which receives the fee" }),
      currencyAddress: z.string().openapi({ description: "The CORE token" }),
      currencyDecimals: z.number().int(),
      chainId: z.number().int(),
    }),
  })
  .openapi("SubscriptionPackage", {
    example: {
      id: "monthly",
      subscriptionDays: 30,
      paymentDetails: {
        amount: 25,
        receiverAddress: "0x9fe46736679d2d9a65f0992f2272de9f3c7fa6e0",
        currencyAddress: "0xe7f1725e7734ce288f8367e1bb143e90bb3f0512",
        currencyDecimals: 18,
        chainId: 8453,
      },
    },
  });

export const SubscriptionOrderSchema = z
  .object({
    id: z.string().openapi({ format: "uuid" }),
    package: z.object({ id: z.string(), subscriptionDays: z.number().int() }),
    status: z.enum(["CREATED", "VERIFIED"]),
    expiresAt: z.string().nullable().openapi({ format: "date-time", description: "null while CREATED" }),
  })
  .openapi("SubscriptionOrder", {
    example: {
      id: "8f7e6d5c-4b3a-4291-8a7b-6c5d4e3f2a1b",
      package: { id: "monthly", subscriptionDays: 30 },
      status: "VERIFIED",
      expiresAt: "2026-02-13T16:05:00.000Z",
    },
  });

const AgentSubnetParams = AgentParamsSchema.extend(SubnetIdParamsSchema.shape);
const OrderParams = AgentSubnetParams.extend({
  packageId: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "packageId", in: "path" }, example: "monthly" }),
});

export const listPackagesRoute = route.indexed(
  "get",
  "/agents/subnets/{subnetId}/datasets/subscriptions/packages",
  "listPackages",
  {
    summary: "The subscription packages of a public datanet, priced at its CORE access fee",
    request: { params: SubnetIdParamsSchema },
    responses: {
      200: jsonContent(
        dataEnvelope(z.object({ subscriptionPackages: z.array(SubscriptionPackageSchema) })),
        "The packages",
      ),
      404: errorResponse("Datanet not found"),
    },
  },
);

export const createOrderRoute = route.agentIndexed(
  "post",
  "/agents/{agentId}/subnets/{subnetId}/datasets/subscriptions/packages/{packageId}/orders",
  "createOrder",
  {
    summary: "Order a package with the txHash of its payment (accessSubnetWithCOREFee from the agent's wallet)",
    request: { params: OrderParams, body: jsonBody(TxHashBodySchema) },
    responses: {
      201: jsonContent(
        dataEnvelope(z.object({ orderId: z.string().openapi({ example: "8f7e6d5c-4b3a-4291-8a7b-6c5d4e3f2a1b" }) })),
        "Order recorded (CREATED or VERIFIED)",
      ),
      400: errorResponse("Invalid body, or a txHash that does not prove the payment"),
      404: errorResponse("Datanet or package not found"),
      503: errorResponse("Chain or indexer unavailable"),
    },
  },
);

export const listOrdersRoute = route.agentIndexed(
  "get",
  "/agents/{agentId}/subnets/{subnetId}/datasets/subscriptions/packages/orders",
  "listOrders",
  {
    summary: "The agent's orders for a datanet, newest first (CREATED ones are checked again)",
    request: { params: AgentSubnetParams },
    responses: {
      200: jsonContent(dataEnvelope(z.object({ orders: z.array(SubscriptionOrderSchema) })), "The orders"),
      404: errorResponse("Datanet not found"),
    },
  },
);
