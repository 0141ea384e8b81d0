/** Votes resource: wires votes.routes.ts to votes.handlers.ts. */
import { createRouter } from "../../../http/create-app";
import type { PlatformEnv } from "../../app-services";
import * as handlers from "./votes.handlers";
import * as routes from "./votes.routes";

export const votesRouter = createRouter<PlatformEnv>()
  .openapi(routes.publicPodVotesRoute, handlers.listPublicPodVotes)
  .openapi(routes.reportVoteRoute, handlers.reportVote);
