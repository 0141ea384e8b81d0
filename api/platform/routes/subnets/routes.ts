/** Datanet routes (spec §4.3): definitions whose zod schemas validate requests and generate the OpenAPI document. */
import { createRoute, z } from "@hono/zod-openapi";
import { dataEnvelope, errorResponse, jsonContent } from "../../../http/openapi";
import { PUBLIC_LIST_MAX_LIMIT, PUBLIC_LIST_MAX_PAGE } from "../../config";
import { SubnetSchema } from "../../presenters/subnet";
import { hasNoNul, NO_NUL, SubnetDraftBodySchema, TxHashSchema } from "../../schemas/drafts";
import { SUBNET_SETTERS, type SubnetSetter } from "../../services/subnet-drafts";

// ---- shared by the platform's resources ----

export const IDP_COOKIE_SECURITY = [{ idpCookie: [] }];
export const IDP_COOKIE_SCHEME = {
  type: "apiKey" as const,
  in: "cookie" as const,
  name: "idp-token",
  description: "Session cookie (JWT) set by the identity provider",
};

export const PaginationSchema = z
  .object({
    page: z.number().int(),
    limit: z.number().int(),
    total: z.number().int().openapi({ description: "Items matching the query, all pages" }),
    totalPages: z.number().int(),
  })
  .openapi("Pagination");

/** `page` and `limit` of the public lists: defaults 1 and 10, minimum 1, limit at most 100. */
export const PageQuerySchema = z.object({
  page: z.coerce
    .number()
    .int()
    .min(1)
    .max(PUBLIC_LIST_MAX_PAGE)
    .default(1)
    .openapi({ param: { name: "page", in: "query" }, example: 1 }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(PUBLIC_LIST_MAX_LIMIT)
    .default(10)
    .openapi({ param: { name: "limit", in: "query" }, example: 10, description: `1 to ${PUBLIC_LIST_MAX_LIMIT}` }),
  search: z
    .string()
    .max(200)
    .refine(hasNoNul, NO_NUL)
    .optional()
    .openapi({ param: { name: "search", in: "query" }, description: "Words to find in the name and description (all must appear)" }),
});

export function pagination(page: number, limit: number, total: number) {
  return { page, limit, total, totalPages: Math.ceil(total / limit) };
}

export const SuccessSchema = dataEnvelope(z.object({ success: z.literal(true) })).openapi("Success");
export const CreatedIdSchema = dataEnvelope(z.object({ id: z.string().openapi({ format: "uuid" }) })).openapi("CreatedId");

export const commonErrors = {
  400: errorResponse("Invalid request"),
  401: errorResponse("Missing, expired or invalid idp-token cookie"),
  404: errorResponse("Unknown id, or a draft of another user"),
  429: errorResponse("Rate limit exceeded"),
};

const tags = ["Datanets"];

const IdParams = z.object({
  id: z.string().openapi({ param: { name: "id", in: "path" }, format: "uuid", description: "The datanet's id" }),
});

const SubnetEnvelope = dataEnvelope(z.object({ subnet: SubnetSchema }));
const SubnetsEnvelope = dataEnvelope(z.object({ subnets: z.array(SubnetSchema) }));

// ---- /me/subnets ----

export const listMySubnetsRoute = createRoute({
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
  .openapi("PublishSubnetBody");

export const publishSubnetRoute = createRoute({
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
    .openapi(`Set${param}Body`);
}

export function setterRoute(setter: SubnetSetter, path: string, hide = false) {
  return createRoute({
    method: "post",
    path,
    tags,
    hide,
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
