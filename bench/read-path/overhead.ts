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

/** Loads each reference and the bare route in turn `rounds` times; prints and returns the median ratios. */
export async function measureOverhead(o: OverheadOptions) {
  const cases = REFERENCES.map((name) => ROUTE_PATHS.find((r) => r.name === name)!);
  const urlOf = (name: (typeof REFERENCES)[number]) => o.stackUrls[cases.find((c) => c.name === name)!.stack!];
  const pathOf = (name: (typeof REFERENCES)[number]) =>
    cases.find((c) => c.name === name)!.path({ pods: 0, votes: 0, datanets: 0, users: 0 });
  // warm-up: the front's kept answer made, every server's code compiled
  for (const name of REFERENCES) await load(urlOf(name), [pathOf(name)], undefined, 10, 1);
  await load(o.bareUrl, ["/json"], undefined, 10, 1);

  const ratios = new Map<string, RoundRatios[]>(REFERENCES.map((name) => [name, []]));
  const frontOverKept: number[] = [];
  const bareCpu: number[] = [];
  for (let round = 0; round < o.rounds; round++) {
    const before = await load(o.bareUrl, ["/json"], undefined, CONNECTIONS, o.seconds);
    const order = REFERENCES.map((_, i) => REFERENCES[(i + round) % REFERENCES.length]!);
    const results = new Map<string, LoadResult>();
    for (const name of order)
      results.set(name, await load(urlOf(name), [pathOf(name)], undefined, CONNECTIONS, o.seconds));
    const after = await load(o.bareUrl, ["/json"], undefined, CONNECTIONS, o.seconds);
    const bare = meanOf(before, after);
    bareCpu.push(bare.cpuUs);
    for (const [name, result] of results) {
      ratios
        .get(name)!
        .push({
          cpu: (result.cpuUs ?? NaN) / bare.cpuUs,
          user: (result.userUs ?? NaN) / bare.userUs,
          rps: result.rps / bare.rps,
        });
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
    console.log(
      `| ${name} | ${spread(
        rows.map((r) => r.cpu),
        3,
      )} | ${spread(
        rows.map((r) => r.user),
        3,
      )} | ${spread(
        rows.map((r) => r.rps),
        3,
      )} |`,
    );
  }
  console.log(
    `front ÷ keptAnswer (the front's own work beyond writing its answer), CPU: ${spread(frontOverKept, 3)}; bare route ${spread(bareCpu, 1)} µs CPU a request`,
  );
  return {
    front: median(ratios.get("front")!.map((r) => r.cpu)),
    keptAnswer: median(ratios.get("keptAnswer")!.map((r) => r.cpu)),
    frontOverKept: median(frontOverKept),
  };
}
