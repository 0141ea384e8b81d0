/** Subscription packages and orders (spec §4.5). */
import { createRoute, z } from "@hono/zod-openapi";
import { chainReady } from "../../../http/middleware";
import { agentAuth } from "../../middleware";
import { dataEnvelope, errorResponse, jsonContent } from "../../../http/openapi";
import { SubnetIdParamsSchema } from "../../schemas/engagement";
import { AGENT_BEARER_SECURITY, AgentParamsSchema, TxHashBodySchema } from "../../schemas/common";

const tags = ["Agents"];

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
  packageId: z.string().min(1).max(64).openapi({ param: { name: "packageId", in: "path" }, example: "monthly" }),
});

const agentErrors = {
  401: errorResponse("Missing or unknown agent credential"),
  403: errorResponse("The path's agentId is not the caller's own"),
};

export const listPackagesRoute = createRoute({
  operationId: "listPackages",
  middleware: [chainReady] as const,
  method: "get",
  path: "/agents/subnets/{subnetId}/datasets/subscriptions/packages",
  tags,
  summary: "The subscription packages of a public datanet, priced at its CORE access fee",
  request: { params: SubnetIdParamsSchema },
  responses: {
    200: jsonContent(
      dataEnvelope(z.object({ subscriptionPackages: z.array(SubscriptionPackageSchema) })),
      "The packages",
    ),
    404: errorResponse("Datanet not found"),
    503: errorResponse("Indexer not ready"),
  },
});

export const createOrderRoute = createRoute({
  operationId: "createOrder",
  middleware: [agentAuth, chainReady] as const,
  method: "post",
  path: "/agents/{agentId}/subnets/{subnetId}/datasets/subscriptions/packages/{packageId}/orders",
  tags,
  summary: "Order a package with the txHash of its payment (accessSubnetWithCOREFee from the agent's wallet)",
  security: AGENT_BEARER_SECURITY,
  request: { params: OrderParams, body: { content: { "application/json": { schema: TxHashBodySchema } }, required: true } },
  responses: {
    201: jsonContent(
      dataEnvelope(z.object({ orderId: z.string().openapi({ example: "8f7e6d5c-4b3a-4291-8a7b-6c5d4e3f2a1b" }) })),
      "Order recorded (CREATED or VERIFIED)",
    ),
    400: errorResponse("Invalid body, or a txHash that does not prove the payment"),
    ...agentErrors,
    404: errorResponse("Datanet or package not found"),
    503: errorResponse("Chain or indexer unavailable"),
  },
});

export const listOrdersRoute = createRoute({
  operationId: "listOrders",
  middleware: [agentAuth, chainReady] as const,
  method: "get",
  path: "/agents/{agentId}/subnets/{subnetId}/datasets/subscriptions/packages/orders",
  tags,
  summary: "The agent's orders for a datanet, newest first (CREATED ones are checked again)",
  security: AGENT_BEARER_SECURITY,
  request: { params: AgentSubnetParams },
  responses: {
    200: jsonContent(dataEnvelope(z.object({ orders: z.array(SubscriptionOrderSchema) })), "The orders"),
    ...agentErrors,
    404: errorResponse("Datanet not found"),
    503: errorResponse("Indexer not ready"),
  },
});
