import { Mutex } from "async-mutex";
import type pg from "pg";
import { withAdvisoryLock } from "./advisory-lock";

/** Runs `fn` while no other sender of the same wallet runs: in this process, and across replicas when shared. */
export interface SendLock {
  run<T>(fn: () => Promise<T>): Promise<T>;
}

/** In-process only (one replica, tests without a database). */
export function createProcessSendLock(): SendLock {
  const mutex = new Mutex();
  return { run: (fn) => mutex.runExclusive(fn) };
}

/**
 * Replicas that share the server wallet's key take turns through a PostgreSQL advisory lock
 * on the wallet's address, held from reading the pending nonce until the node accepted the
 * transaction; the in-process mutex keeps a replica from holding several connections waiting.
 */
export function createPostgresSendLock(pool: pg.Pool, walletAddress: string): SendLock {
  const local = new Mutex();
  const key = `server-wallet:${walletAddress.toLowerCase()}`;
  return { run: (fn) => local.runExclusive(() => withAdvisoryLock(pool, key, fn)) };
}
