import type { OpenAPIHono, RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../../../http/types";
import { accountOf, type EvalContext } from "../../context";
import type { Decision } from "../../limits";
import { insertAssessment } from "./queries";
import { createAssessmentRoute } from "./routes";

export function createAssessmentHandler(ctx: EvalContext): RouteHandler<typeof createAssessmentRoute, AppEnv> {
  return async (c) => {
    const accountId = accountOf(c);
    const { evalId } = c.req.valid("param");
    const row = await insertAssessment(ctx.db, { evalId, accountId, now: ctx.now(), body: c.req.valid("json") });
    return c.json(
      {
        id: row.id,
        agentName: row.agentName,
        modelName: row.modelName,
        score: row.score,
        decision: row.decision as Decision,
        critique: row.critique,
        createdAt: row.createdAt.toISOString(),
      },
      201,
    );
  };
}

export function registerAssessmentRoutes(router: OpenAPIHono<AppEnv>, ctx: EvalContext): void {
  router.openapi(createAssessmentRoute, createAssessmentHandler(ctx));
}
