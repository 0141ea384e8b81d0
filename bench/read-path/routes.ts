/** The routes the read-path bench loads (run.ts) and times uncached (uncached.ts). */
import { encodeCursor, fingerprint } from "../../api/platform/services/pod-list";
import { BENCH_AGENT_CREDENTIAL, BENCH_AGENT_ID, DATASET_SUBNET, type BenchData } from "./data";

/** Offset of the "deep" page: page 5,000 of limit 10, or the last page when there are fewer pods. */
const deepOffset = (d: BenchData) => (Math.min(5_000, Math.ceil(d.pods / 10)) - 1) * 10;

export type ReferenceApp = "silent" | "info" | "headers" | "ponder";

export interface RouteCase {
  name: string;
  path: (data: BenchData) => string;
  cookie?: boolean;
  /** Sent with the bench agent's credential (Authorization: Bearer). */
  agent?: boolean;
  /**
   * Served by a reference app (measure.ts): the Platform app's whole middleware stack with one
   * trivial route added, its logger silent or writing the API's JSON line per request at `info` (to
   * /dev/null); "headers", a bare Hono route answering with that stack's response headers;
   * "ponder", the indexer's own GraphQL (another process: its CPU column is not its cost).
   */
  stack?: ReferenceApp;
  /** Connections of its load when not the bench's 50 (a route that sheds load past a bound). */
  connections?: number;
  /** Sent with `Accept-Encoding: gzip`, as browsers, fetch and most HTTP clients send it. */
  gzip?: boolean;
}

/** Page 1 of the pods as Ponder's GraphQL serves it (it knows no off-chain listing: every indexed pod). */
const PONDER_PAGE1_QUERY =
  '{ pods(orderBy: "id", orderDirection: "desc", limit: 10) { items { id owner subnetId mintEpoch validityEpoch cumulativeUpVotes cumulativeDownVotes } totalCount } }';

export const ROUTE_PATHS: RouteCase[] = [
  // the per-request overhead (request id, metrics, log, CORS, context, rate limit) on a route that does nothing
  { name: "stack", path: () => "/api/v1/bench/trivial", stack: "silent" },
  // the same with the request log on, as the API runs by default (LOG_LEVEL=info)
  { name: "stackLogged", path: () => "/api/v1/bench/trivial", stack: "info" },
  // a bare route sending the stack's answer headers (rate limit, CORS, request id): their cost alone
  { name: "bareHeaders", path: () => "/json", stack: "headers" },
  { name: "page1", path: () => "/api/v1/public/pods?page=1&limit=10" },
  // page 5,000 of limit 10, or the last page when there are fewer pods (see deepOffset)
  { name: "deep", path: (d) => `/api/v1/public/pods?page=${deepOffset(d) / 10 + 1}&limit=10` },
  // the same page by the cursor a crawl would hold there (every generated pod is listed: token ids 1..pods)
  {
    name: "cursorDeep",
    path: (d) =>
      `/api/v1/public/pods?limit=10&cursor=${encodeCursor({ after: BigInt(d.pods - deepOffset(d) + 1), offset: deepOffset(d) }, fingerprint(undefined, undefined, undefined))}`,
  },
  // the peer an integrator would otherwise use: Ponder's GraphQL for the same first page (newest 10 pods and the total)
  {
    name: "ponderGraphql",
    path: () => `/graphql?query=${encodeURIComponent(PONDER_PAGE1_QUERY)}`,
    stack: "ponder",
  },
  { name: "search", path: () => "/api/v1/public/pods?page=1&limit=10&search=bravo" },
  // a datanet that grows with the market (DATASET_SUBNET does not: see data.ts)
  { name: "subnet", path: () => "/api/v1/public/pods?page=1&limit=10&filters[subnet]=5" },
  { name: "epoch", path: () => "/api/v1/public/pods?page=1&limit=10&filters[currentEpoch]=5" },
  { name: "pod", path: () => "/api/v1/public/pods/5" },
  { name: "subnets", path: () => "/api/v1/public/subnets" },
  { name: "podVotes", path: () => "/api/v1/public/pods/5/votes/epochs/3" },
  { name: "stats", path: () => "/api/v1/stats" },
  { name: "mePods", path: () => "/api/v1/me/pods", cookie: true },
  { name: "mePodsGzip", path: () => "/api/v1/me/pods", cookie: true, gzip: true },
  // the agent dataset download of one datanet: its pods are among the first 1,000, so the same at every size from 1k
  // (16 connections: within DATASET_MAX_CONCURRENT + DATASET_MAX_QUEUED, past which it answers 503)
  {
    name: "dataset",
    path: () => `/api/v1/agents/${BENCH_AGENT_ID}/subnets/${DATASET_SUBNET}/datasets`,
    agent: true,
    connections: 16,
  },
  {
    name: "datasetGzip",
    path: () => `/api/v1/agents/${BENCH_AGENT_ID}/subnets/${DATASET_SUBNET}/datasets`,
    agent: true,
    connections: 16,
    gzip: true,
  },
];

/** The headers of a route's requests: the power user's cookie, the bench agent's credential, or none. */
export function routeHeaders(route: RouteCase, cookieToken: string): Record<string, string> | undefined {
  const headers: Record<string, string> = {};
  if (route.cookie) headers.Cookie = `idp-token=${cookieToken}`;
  if (route.agent) headers.Authorization = `Bearer ${BENCH_AGENT_CREDENTIAL}`;
  if (route.gzip) headers["Accept-Encoding"] = "gzip";
  return Object.keys(headers).length > 0 ? headers : undefined;
}
