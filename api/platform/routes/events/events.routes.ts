/** The protocol event stream (beyond the spec): server-sent events of the indexed protocol events. */
import { z } from "@hono/zod-openapi";
import { TOKEN_ID } from "../../../db/refs";
import { errorResponse } from "../../../http/openapi";
import { AddressSchema } from "../../schemas/drafts";
import { platformRoutes } from "../kinds";

const tokenId = (name: string, description: string) =>
  z
    .string()
    .regex(TOKEN_ID, "must be a token id (a non-negative integer)")
    .transform((value) => BigInt(value))
    .optional()
    .openapi({ param: { name, in: "query" }, description, example: "1", type: "string" });

export const EventsQuerySchema = z.object({
  datanet: tokenId(
    "datanet",
    "Only events of this datanet (its subnetId): publication, pods minted or republished into it, votes, claims, access",
  ),
  pod: tokenId("pod", "Only events of this pod (its token id): mint, republish, invalidation, votes, claims"),
  wallet: AddressSchema.optional().openapi({
    param: { name: "wallet", in: "query" },
    description: "Only events this wallet takes part in (owner, payer, voter, claimant, sender, lock owner, moderator)",
  }),
  lastEventId: z
    .string()
    .max(64)
    .optional()
    .openapi({
      param: { name: "lastEventId", in: "query" },
      description:
        "The Last-Event-ID header for clients that cannot set headers (the header wins when both are sent); `0` replays from the first event",
      example: "0",
    }),
});

/** Captured from the test suite (docs/events.md): a vote, its retraction after a reorg, the vote that replaced it. */
export const EVENT_STREAM_EXAMPLE = [
  ": protocol events",
  "",
  "event: vote",
  'data: {"id":"73-0-3ca427836947a786","kind":"vote","blockNumber":73,"blockHash":"0x3ca427836947a786cfaba9ab406fdae66a2ecd87637430c660836d46ba8a8b29","logIndex":0,"txHash":"0xbb19d2791d95eaa6e6e9f3aa559a1d4aebc08de30596dfeddff24ba1c7aeeac7","timestamp":"2026-11-26T00:38:49.000Z","data":{"podId":"1","voter":"0x15d34aaf54267db7d7c367839aaf71a00a2c6a65","subnetId":"1","epoch":"2","votes":"3000000000000000000","upVote":true,"votingPower":"505000000000000000000"}}',
  "id: 73-0-3ca427836947a786",
  "",
  "event: retraction",
  'data: {"id":"73-0-3ca427836947a786","reason":"reorg"}',
  "id: 72-0-233fcefc3ff99dbc",
  "",
  "event: vote",
  'data: {"id":"73-0-917204b99f438f71","kind":"vote","blockNumber":73,"blockHash":"0x917204b99f438f710b56dbd949021cf9c5ef89ec2dd205f711c2cbcded326821","logIndex":0,"txHash":"0x999b8835efefbc6df0103f5c67432c4388eb4ef35b64497264fcaf43178ffae3","timestamp":"2026-11-26T00:38:48.000Z","data":{"podId":"1","voter":"0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc","subnetId":"1","epoch":"2","votes":"4000000000000000000","upVote":false,"votingPower":"541095890410958904109"}}',
  "id: 73-0-917204b99f438f71",
  "",
  ": keep-alive",
  "",
].join("\n");

export const streamEventsRoute = platformRoutes(["Events"]).public("get", "/events", "streamEvents", {
  summary: "Live stream of indexed protocol events (server-sent events), resumable and reorg-aware",
  description:
    "Event types: `datanet_published`, `pod_minted`, `pod_republished`, `pod_invalidated`, `vote`, `emissions_claimed`, `access_granted` (purchases and subscription payments), `lock_created`, `lock_increased`, `lock_extended`, `lock_withdrawn`, and `retraction`. " +
    "Events come in chain order (block, log index). Every event has an `id:` (`<block>-<logIndex>-<16 hex digits of the block hash>`); " +
    "send the last one back as `Last-Event-ID` (or `?lastEventId=`) to resume without gaps or duplicates; `0` replays from the first event; without one, the stream starts now. " +
    "When a reorg removes an event already sent, a `retraction` names it (`data.id`); its `id:` is the last event still valid. " +
    "A retraction with `from` means: every event received after `from`, up to and including `data.id`, is retracted. " +
    "Filters (`datanet`, `pod`, `wallet`) combine with AND. A comment (`: keep-alive`) comes when nothing else was sent for a while. No credentials: chain state is public.",
  request: { query: EventsQuerySchema },
  responses: {
    200: {
      description: "The stream (text/event-stream); it ends when the client disconnects",
      content: { "text/event-stream": { schema: z.string(), example: EVENT_STREAM_EXAMPLE } },
    },
    400: errorResponse("Invalid filter or Last-Event-ID"),
    503: errorResponse("Indexer not ready, or too many open streams (see Retry-After)"),
  },
});
