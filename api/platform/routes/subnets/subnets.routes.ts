/** Datanet routes (spec §4.3): definitions whose zod schemas validate requests and generate the OpenAPI document. */
import { z } from "@hono/zod-openapi";
import { commonErrors, dataEnvelope, errorResponse, jsonBody, jsonContent } from "../../../http/openapi";
import { SubnetSchema } from "../../presenters/subnet";
import { CreatedIdSchema, PageQuerySchema, PaginationSchema, SuccessSchema } from "../../schemas/common";
import { SubnetDraftBodySchema, TxHashSchema } from "../../schemas/drafts";
import { EXAMPLE } from "../../schemas/examples";
import { SUBNET_SETTERS, type SubnetSetter } from "../../services/subnet-drafts";
import { platformRoutes } from "../kinds";

const route = platformRoutes(["Datanets"]);

const IdParams = z.object({
  id: z.string().openapi({ param: { name: "id", in: "path" }, format: "uuid", description: "The datanet's id" }),
});

const SubnetEnvelope = dataEnvelope(z.object({ subnet: SubnetSchema }));
const SubnetsEnvelope = dataEnvelope(z.object({ subnets: z.array(SubnetSchema) }));

/** A chain-verified record: every common error, 503 when the chain cannot be asked. */
const recordErrors = { ...commonErrors, 503: errorResponse("Chain unavailable") };

// ---- /me/subnets ----

export const listMySubnetsRoute = route.userIndexed("get", "/me/subnets", "listMySubnets", {
  summary: "Datanets created by the caller (drafts and published)",
  responses: { 200: jsonContent(SubnetsEnvelope, "The caller's datanets, newest first") },
});

export const createSubnetRoute = route.user("post", "/me/subnets", "createSubnet", {
  summary: "Create a datanet draft",
  request: { body: jsonBody(SubnetDraftBodySchema) },
  responses: { 201: jsonContent(CreatedIdSchema, "Draft created"), 400: commonErrors[400] },
});

export const getMySubnetRoute = route.userIndexed("get", "/me/subnets/{id}", "getMySubnet", {
  summary: "One of the caller's datanets",
  request: { params: IdParams },
  responses: { 200: jsonContent(SubnetEnvelope, "The datanet"), 404: commonErrors[404] },
});

const PublishBodySchema = z
  .object({ subnetId: z.string().openapi({ description: "Must equal the path id" }), txHash: TxHashSchema })
  .openapi("PublishSubnetBody", { example: { subnetId: EXAMPLE.subnetId, txHash: EXAMPLE.txHash } });

export const publishSubnetRoute = route.user("post", "/me/subnets/{id}/publish", "publishSubnet", {
  summary: "Record the datanet's on-chain publication (SubnetManager.publishSubnet)",
  description:
    "The txHash must be a successful publishSubnet sent by the caller's wallet to the SubnetManager whose SubnetPublished event has owner = the caller's wallet and primaryToken = the draft's nativeTokenAddress, not used for any other record.",
  request: { params: IdParams, body: jsonBody(PublishBodySchema) },
  responses: { 200: jsonContent(SuccessSchema, "Published: the draft now carries its tokenId"), ...recordErrors },
});

// ---- fee and emission setters ----

/**
 * A CORE setter at `/me/subnets/{id}/<parameter>/core`; its `aliases` answer the same (hidden
 * from the document): `core-token`, and `reppo-token`, the live token's name that the spec's route
 * table shows.
 */
const coreSetter = (parameter: string, summary: string) => {
  const base = `/me/subnets/{id}/${parameter}`;
  return { path: `${base}/core`, aliases: [`${base}/core-token`, `${base}/reppo-token`], summary };
};

/** Path of each setter, and the alias paths that answer the same. */
export const SETTER_PATHS: Record<SubnetSetter, { path: string; aliases: string[]; summary: string }> = {
  accessFeeCore: coreSetter("access-fee", "Record a new CORE access fee (SubnetManager.setAccessFeeCORE)"),
  publishingFeeCore: coreSetter(
    "pod-publishing-fee",
    "Record a new CORE pod publishing fee (SubnetManager.setPublishingFeeCORE)",
  ),
  republishingFeeCore: coreSetter(
    "pod-republishing-fee",
    "Record a new CORE pod republishing fee (SubnetManager.setRepublishingFeeCORE)",
  ),
  emissionsCore: coreSetter(
    "emissions-per-epoch",
    "Record new CORE emissions per epoch (SubnetManager.setEmissionsPerEpochCORE)",
  ),
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
  return route.user("post", path, `set${SUBNET_SETTERS[setter].param}${alias === undefined ? "" : `Alias${alias}`}`, {
    hide: alias !== undefined,
    summary: SETTER_PATHS[setter].summary,
    description:
      "The txHash must be a successful call sent by the caller's wallet to the SubnetManager whose SubnetParameterUpdated event names this datanet's tokenId, this parameter and exactly the amount in the body.",
    request: { params: IdParams, body: jsonBody(setterBodySchema(setter)) },
    responses: { 200: jsonContent(SuccessSchema, "Recorded"), ...recordErrors },
  });
}

// ---- public ----

export const listPublicSubnetsRoute = route.public("get", "/public/subnets", "listPublicSubnets", {
  summary: "Published datanets (with metadata), newest first",
  request: { query: PageQuerySchema },
  responses: {
    200: jsonContent(
      dataEnvelope(z.object({ subnets: z.array(SubnetSchema), pagination: PaginationSchema })),
      "One page of datanets",
    ),
    400: commonErrors[400],
  },
});

export const getPublicSubnetRoute = route.public("get", "/public/subnets/{id}", "getPublicSubnet", {
  summary: "A published datanet",
  request: {
    params: z.object({
      id: z.string().openapi({ param: { name: "id", in: "path" }, description: "The datanet's id (or its tokenId)" }),
    }),
  },
  responses: {
    200: jsonContent(SubnetEnvelope, "The datanet"),
    404: errorResponse("Unknown or unpublished datanet"),
  },
});
