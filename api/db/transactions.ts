import { NodePgSession } from "drizzle-orm/node-postgres";
import type { TablesRelationalConfig } from "drizzle-orm";
import type pg from "pg";
import { isDatabaseUnavailable } from "./errors";

interface SessionInternals {
  dialect: ConstructorParameters<typeof NodePgSession>[1];
  schema: ConstructorParameters<typeof NodePgSession>[2];
  options: ConstructorParameters<typeof NodePgSession>[3];
  transaction: NodePgSession<Record<string, unknown>, TablesRelationalConfig>["transaction"];
}

/**
 * drizzle-orm 0.41's `db.transaction` on a pool runs BEGIN before its try/finally: a BEGIN that
 * fails (a terminated backend, a frozen server) never releases its client, and after enough of
 * those the pool is empty for good. It also returns a client to the pool after any failure, even
 * one whose connection is dead or still waiting for an answer.
 *
 * This runs each transaction on a client checked out here, released in every case, and destroyed
 * (released with the error) when the failure says the connection cannot be trusted.
 */
export function releaseTransactionClients(db: object, pool: pg.Pool): void {
  const session = (db as unknown as { session: SessionInternals }).session;
  session.transaction = async (transaction, config) => {
    const client = await pool.connect();
    const bound = new NodePgSession(client, session.dialect, session.schema, session.options);
    let failure: unknown;
    try {
      return await bound.transaction(transaction, config);
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      client.release(failure !== undefined && isDatabaseUnavailable(failure) ? (failure as Error) : undefined);
    }
  };
}
