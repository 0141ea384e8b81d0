/**
 * The root router of every surface: Hono's SmartRouter remembering its last `maxEntries` answers
 * by method and path.
 *
 * Hono's fast RegExpRouter cannot hold the Platform API's routes (a parameter and a static segment
 * at one level below a shared prefix: `/me/pods/{id}` beside `/me/pods/votes/epochs/{epochId}`),
 * so SmartRouter falls back to its TrieRouter, which walks the tree of ~240 routes and middleware
 * patterns on every request: 0.8-3.4 µs per match against ~0.1 µs for a remembered one. Reads
 * repeat a small set of paths (page 1, a datanet, a popular pod), which stay remembered; a match
 * result is never changed by Hono after it is made, so one result can serve many requests.
 */
import type { Result, Router } from "hono/router";
import { RegExpRouter } from "hono/router/reg-exp-router";
import { SmartRouter } from "hono/router/smart-router";
import { TrieRouter } from "hono/router/trie-router";

const DEFAULT_MAX_ENTRIES = 2_048;

export class MemoRouter<T> implements Router<T> {
  readonly name = "MemoRouter";
  readonly #inner: Router<T> = new SmartRouter<T>({ routers: [new RegExpRouter(), new TrieRouter()] });
  readonly #memo = new Map<string, Result<T>>();

  constructor(private readonly maxEntries = DEFAULT_MAX_ENTRIES) {}

  add(method: string, path: string, handler: T): void {
    this.#inner.add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    const key = `${method} ${path}`;
    let result = this.#memo.get(key);
    if (result === undefined) {
      result = this.#inner.match(method, path);
      // oldest first out: a crawl through every pod cannot grow it
      if (this.#memo.size >= this.maxEntries) this.#memo.delete(this.#memo.keys().next().value!);
      this.#memo.set(key, result);
    }
    return result;
  }
}
