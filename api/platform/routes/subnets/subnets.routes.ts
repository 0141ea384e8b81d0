/** Datanet routes (spec §4.3): definitions whose zod schemas validate requests and generate the OpenAPI document. */
import { createRoute, z } from "@hono/zod-openapi";
import { chainReady } from "../../../http/middleware";
import { userAuth } from "../../middleware";
import { commonErrors, dataEnvelope, errorResponse, jsonContent } from "../../../http/openapi";
import { SubnetSchema } from "../../presenters/subnet";
import { CreatedIdSchema, IDP_COOKIE_SECURITY, PageQuerySchema, PaginationSchema, SuccessSchema } from "../../schemas/common";
import { SubnetDraftBodySchema, TxHashSchema } from "../../schemas/drafts";
import { EXAMPLE } from "../../schemas/examples";
import { SUBNET_SETTERS, type SubnetSetter } from "../../services/subnet-drafts";

const tags = ["Datanets"];

const IdParams = z.object({
  id: z.string().openapi({ param: { name: "id", in: "path" }, format: "uuid", description: "The datanet's id" }),
});

const SubnetEnvelope = dataEnvelope(z.object({ subnet: SubnetSchema }));
const SubnetsEnvelope = dataEnvelope(z.object({ subnets: z.array(SubnetSchema) }));

// ---- /me/subnets ----

export const listMySubnetsRoute = createRoute({
  operationId: "listMySubnets",
  middleware: [userAuth, chainReady] as const,
  method: "get",
  path: "/me/subnets",
  tags,
  summary: "Datanets created by the caller (drafts and published)",
  security: IDP_COOKIE_SECURITY,
  responses: {
    200: jsonContent(SubnetsEnvelope, "The caller's datanets, newest first"),
    401: commonErrors[401],
    503: errorResponse("Indexer not ready"),
  },
});

export const createSubnetRoute = createRoute({
  operationId: "createSubnet",
  middleware: [userAuth] as const,
  method: "post",
  path: "/me/subnets",
  tags,
  summary: "Create a datanet draft",
  security: IDP_COOKIE_SECURITY,
  request: { body: { required: true, content: { "application/json": { schema: SubnetDraftBodySchema } } } },
  responses: {
    201: jsonContent(CreatedIdSchema, "Draft created"),
    400: commonErrors[400],
    401: commonErrors[401],
  },
});

export const getMySubnetRoute = createRoute({
  operationId: "getMySubnet",
  middleware: [userAuth, chainReady] as const,
  method: "get",
  path: "/me/subnets/{id}",
  tags,
  summary: "One of the caller's datanets",
  security: IDP_COOKIE_SECURITY,
  request: { params: IdParams },
  responses: {
    200: jsonContent(SubnetEnvelope, "The datanet"),
    401: commonErrors[401],
    404: commonErrors[404],
    503: errorResponse("Indexer not ready"),
  },
});

const PublishBodySchema = z
  .object({ subnetId: z.string().openapi({ description: "Must equal the path id" }), txHash: TxHashSchema })
  .openapi("PublishSubnetBody", { example: { subnetId: EXAMPLE.subnetId, txHash: EXAMPLE.txHash } });

export const publishSubnetRoute = createRoute({
  operationId: "publishSubnet",
  middleware: [userAuth] as const,
  method: "post",
  path: "/me/subnets/{id}/publish",
  tags,
  summary: "Record the datanet's on-chain publication (SubnetManager.publishSubnet)",
  description:
    "The txHash must be a successful publishSubnet sent by the caller's wallet to the SubnetManager whose SubnetPublished event has owner = the caller's wallet and primaryToken = the draft's nativeTokenAddress, not used for any other record.",
  security: IDP_COOKIE_SECURITY,
  request: { params: IdParams, body: { required: true, content: { "application/json": { schema: PublishBodySchema } } } },
  responses: {
    200: jsonContent(SuccessSchema, "Published: the draft now carries its tokenId"),
    ...commonErrors,
    503: errorResponse("Chain unavailable"),
  },
});

// ---- fee and emission setters ----

/**
 * Path of each setter; `aliases` answer the same (hidden from the document): `core-token`, and
 * `reppo-token`, the live token's name that the spec's route table shows.
 */
export const SETTER_PATHS: Record<SubnetSetter, { path: string; aliases: string[]; summary: string }> = {
  accessFeeCore: {
    path: "/me/subnets/{id}/access-fee/core",
    aliases: ["/me/subnets/{id}/access-fee/core-token", "/me/subnets/{id}/access-fee/reppo-token"],
    summary: "Record a new CORE access fee (SubnetManager.setAccessFeeCORE)",
  },
  publishingFeeCore: {
    path: "/me/subnets/{id}/pod-publishing-fee/core",
    aliases: ["/me/subnets/{id}/pod-publishing-fee/core-token", "/me/subnets/{id}/pod-publishing-fee/reppo-token"],
    summary: "Record a new CORE pod publishing fee (SubnetManager.setPublishingFeeCORE)",
  },
  republishingFeeCore: {
    path: "/me/subnets/{id}/pod-republishing-fee/core",
    aliases: ["/me/subnets/{id}/pod-republishing-fee/core-token", "/me/subnets/{id}/pod-republishing-fee/reppo-token"],
    summary: "Record a new CORE pod republishing fee (SubnetManager.setRepublishingFeeCORE)",
  },
  emissionsCore: {
    path: "/me/subnets/{id}/emissions-per-epoch/core",
    aliases: ["/me/subnets/{id}/emissions-per-epoch/core-token", "/me/subnets/{id}/emissions-per-epoch/reppo-token"],
    summary: "Record new CORE emissions per epoch (SubnetManager.setEmissionsPerEpochCORE)",
  },
  emissionsPrimaryToken: {
    path: "/me/subnets/{id}/emissions-per-epoch/primary-token",
    aliases: [],
    summary: "Record new primary-token emissions per epoch (SubnetManager.setEmissionsPerEpochPrimaryToken)",
  },
};

export function setterBodySchema(setter: SubnetSetter) {
  const { field, param } = SUBNET_SETTERS[setter];
  return z
    .object({
      subnetId: z.string().openapi({ description: "Must equal the path id" }),
      [field]: z
        .number()
        .nonnegative()
        .openapi({ description: `Whole tokens; must equal the ${param} value of the transaction's event exactly` }),
      txHash: TxHashSchema,
    })
    .openapi(`Set${param}Body`, { example: { subnetId: EXAMPLE.subnetId, [field]: 25, txHash: EXAMPLE.txHash } });
}

/** The route of a setter at `path`; `alias` numbers the hidden alias paths (unique operationIds). */
export function setterRoute(setter: SubnetSetter, path: string, alias?: number) {
  return createRoute({
    operationId: `set${SUBNET_SETTERS[setter].param}${alias === undefined ? "" : `Alias${alias}`}`,
    middleware: [userAuth] as const,
    method: "post",
    path,
    tags,
    hide: alias !== undefined,
    summary: SETTER_PATHS[setter].summary,
    description:
      "The txHash must be a successful call sent by the caller's wallet to the SubnetManager whose SubnetParameterUpdated event names this datanet's tokenId, this parameter and exactly the amount in the body.",
    security: IDP_COOKIE_SECURITY,
    request: {
      params: IdParams,
      body: { required: true, content: { "application/json": { schema: setterBodySchema(setter) } } },
    },
    responses: {
      200: jsonContent(SuccessSchema, "Recorded"),
      ...commonErrors,
      503: errorResponse("Chain unavailable"),
    },
  });
}

// ---- public ----

export const listPublicSubnetsRoute = createRoute({
  operationId: "listPublicSubnets",
  middleware: [chainReady] as const,
  method: "get",
  path: "/public/subnets",
  tags,
  summary: "Published datanets (with metadata), newest first",
  request: { query: PageQuerySchema },
  responses: {
    200: jsonContent(
      dataEnvelope(z.object({ subnets: z.array(SubnetSchema), pagination: PaginationSchema })),
      "One page of datanets",
    ),
    400: commonErrors[400],
    429: commonErrors[429],
    503: errorResponse("Indexer not ready"),
  },
});

export const getPublicSubnetRoute = createRoute({
  operationId: "getPublicSubnet",
  middleware: [chainReady] as const,
  method: "get",
  path: "/public/subnets/{id}",
  tags,
  summary: "A published datanet",
  request: {
    params: z.object({
      id: z.string().openapi({ param: { name: "id", in: "path" }, description: "The datanet's id (or its tokenId)" }),
    }),
  },
  responses: {
    200: jsonContent(SubnetEnvelope, "The datanet"),
    404: errorResponse("Unknown or unpublished datanet"),
    429: commonErrors[429],
    503: errorResponse("Indexer not ready"),
  },
});
