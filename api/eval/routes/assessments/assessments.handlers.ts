import type { EvalAccountHandler } from "../../app-services";
import type { Decision } from "../../limits";
import { insertAssessment } from "../../repositories/assessments";
import type * as routes from "./assessments.routes";

export const createAssessment: EvalAccountHandler<typeof routes.createAssessmentRoute> = async (c) => {
  const ctx = c.get("services");
  const accountId = c.get("account");
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
