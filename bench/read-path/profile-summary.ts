/**
 * Summary of a .cpuprofile written by BENCH_READ_PROFILE: the share of samples by self time
 * (function and file) and by inclusive time of the named functions, so the per-request cost of
 * each middleware shows without a profiler UI.
 *
 *   npx tsx bench/read-path/profile-summary.ts dir/10000-page1.cpuprofile [top=40]
 */
import { readFileSync } from "node:fs";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  startTime: number;
  endTime: number;
}

const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error("usage: profile-summary.ts <file.cpuprofile> [top]");
const top = Number(topArg ?? 40);
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const selfCount = new Map<number, number>();
for (const s of profile.samples) selfCount.set(s, (selfCount.get(s) ?? 0) + 1);
const total = profile.samples.length;

const shortUrl = (url: string) => url.replace(/^.*node_modules\//, "~/").replace(/^file:\/\/.*?\/(api|bench|ops|chain)\//, "$1/");
const label = (n: Node) => `${n.callFrame.functionName || "(anonymous)"} ${shortUrl(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;

/** The package of a node_modules file, else the file. */
const packageOf = (url: string) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? shortUrl(url);

const self = new Map<string, number>();
const selfPackage = new Map<string, number>();
const selfFile = new Map<string, number>();
const inclusive = new Map<string, number>();
for (const [id, count] of selfCount) {
  const n = byId.get(id)!;
  self.set(label(n), (self.get(label(n)) ?? 0) + count);
  const pkg = packageOf(n.callFrame.url) || n.callFrame.functionName;
  selfPackage.set(pkg, (selfPackage.get(pkg) ?? 0) + count);
  const f = shortUrl(n.callFrame.url) || n.callFrame.functionName;
  selfFile.set(f, (selfFile.get(f) ?? 0) + count);
  // inclusive: every distinct frame on the stack once
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const l = label(byId.get(cur)!);
    if (seen.has(l)) continue;
    seen.add(l);
    inclusive.set(l, (inclusive.get(l) ?? 0) + count);
  }
}

const pct = (n: number) => `${((100 * n) / total).toFixed(1).padStart(5)}%`;
const print = (title: string, map: Map<string, number>, n: number) => {
  console.log(`\n${title}`);
  for (const [k, v] of [...map].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(`${pct(v)}  ${k}`);
};
console.log(`${file}: ${total} samples over ${((profile.endTime - profile.startTime) / 1e6).toFixed(1)} s`);
print("self time by package (node_modules) or file", selfPackage, 25);
print("self time by file", selfFile, 25);
print("self time by function", self, top);
print("inclusive time by function", inclusive, top);
