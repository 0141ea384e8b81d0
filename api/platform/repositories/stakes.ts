/** SQL of the stake resource. */
import { boostsReported } from "../../db/offchain";
import type { Executor } from "./subnets";

export type NewBoost = typeof boostsReported.$inferInsert;

export async function insertBoost(db: Executor, values: NewBoost): Promise<void> {
  await db.insert(boostsReported).values(values);
}
