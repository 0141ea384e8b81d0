/**
 * The per-request overhead of target 3 (issue 12), in many short alternations: the bare route and
 * the references that isolate the overhead (keptAnswer, front, stack: see routes.ts), each loaded
 * for a slice of seconds in turn, the order rotated each round. Each reference's CPU per request is
 * divided by the mean of the bare route's just before and just after the round, and the medians
 * of those per-round ratios are reported with their range: one pair of runs on a shared machine
 * drifts by as much as the overhead left to measure.
 */
import { CONNECTIONS, fmt, load } from "./measure";
import { ROUTE_PATHS, type ReferenceApp } from "./routes";
import type { LoadResult } from "./wrk";

const REFERENCES = ["keptAnswer", "front", "stack"] as const;

export interface OverheadOptions {
  bareUrl: string;
  stackUrls: Record<ReferenceApp, string>;
  rounds: number;
  /** Seconds of each slice (wrk takes whole seconds). */
  seconds: number;
}

interface RoundRatios {
  cpu: number;
  user: number;
  rps: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const spread = (values: number[], digits: number) =>
  `${fmt(median(values), digits)} (${fmt(Math.min(...values), digits)}-${fmt(Math.max(...values), digits)})`;

function meanOf(a: LoadResult, b: LoadResult): Required<Pick<LoadResult, "cpuUs" | "userUs" | "rps">> {
  return {
    cpuUs: ((a.cpuUs ?? NaN) + (b.cpuUs ?? NaN)) / 2,
    userUs: ((a.userUs ?? NaN) + (b.userUs ?? NaN)) / 2,
    rps: (a.rps + b.rps) / 2,
  };
}

type Reference = (typeof REFERENCES)[number];

/** Loads the bare route and each reference in turn `rounds` times and prints the median ratios. */
export async function measureOverhead(o: OverheadOptions): Promise<void> {
  const caseOf = (name: Reference) => ROUTE_PATHS.find((r) => r.name === name)!;
  const urlOf = (name: Reference) => o.stackUrls[caseOf(name).stack!];
  // the references' paths do not depend on the data
  const pathOf = (name: Reference) => caseOf(name).path({ pods: 0, votes: 0, datanets: 0, users: 0 });
  const loadBare = (connections: number, seconds: number) =>
    load(o.bareUrl, ["/json"], undefined, connections, seconds);
  const loadReference = (name: Reference, connections: number, seconds: number) =>
    load(urlOf(name), [pathOf(name)], undefined, connections, seconds);
  // warm-up: the front's kept answer made, every server's code compiled
  for (const name of REFERENCES) await loadReference(name, 10, 1);
  await loadBare(10, 1);

  const ratios = new Map<Reference, RoundRatios[]>(REFERENCES.map((name) => [name, []]));
  const frontOverKept: number[] = [];
  const bareCpu: number[] = [];
  for (let round = 0; round < o.rounds; round++) {
    const before = await loadBare(CONNECTIONS, o.seconds);
    const results = new Map<Reference, LoadResult>();
    for (let i = 0; i < REFERENCES.length; i++) {
      const name = REFERENCES[(i + round) % REFERENCES.length]!;
      results.set(name, await loadReference(name, CONNECTIONS, o.seconds));
    }
    const bare = meanOf(before, await loadBare(CONNECTIONS, o.seconds));
    bareCpu.push(bare.cpuUs);
    for (const [name, result] of results) {
      const cpu = (result.cpuUs ?? NaN) / bare.cpuUs;
      ratios.get(name)!.push({ cpu, user: (result.userUs ?? NaN) / bare.userUs, rps: result.rps / bare.rps });
    }
    frontOverKept.push((results.get("front")!.cpuUs ?? NaN) / (results.get("keptAnswer")!.cpuUs ?? NaN));
  }

  console.log(
    `\nper-request overhead (target 3): ${o.rounds} rounds of ${o.seconds} s slices at ${CONNECTIONS} connections, the bare route before and after each round; median (min-max) of the per-round ratios`,
  );
  console.log("| reference | CPU ÷ bare | user CPU ÷ bare | req/s ÷ bare |");
  console.log("|---|---:|---:|---:|");
  for (const name of REFERENCES) {
    const rows = ratios.get(name)!;
    const column = (of: (r: RoundRatios) => number) => spread(rows.map(of), 3);
    console.log(`| ${name} | ${column((r) => r.cpu)} | ${column((r) => r.user)} | ${column((r) => r.rps)} |`);
  }
  console.log(
    `front ÷ keptAnswer (the front's own work beyond writing its answer), CPU: ${spread(frontOverKept, 3)}; bare route ${spread(bareCpu, 1)} µs CPU a request`,
  );
}
