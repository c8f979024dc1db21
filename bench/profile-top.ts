// `node --import tsx bench/profile-top.ts <file.cpuprofile> [N] [--inclusive] [--filter TEXT]`:
// the functions with the most self time (or, with --inclusive, time including callees) in a
// V8 CPU profile as written by `npm run bench -- --cpu-prof DIR`, as shares of busy time.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const IDLE = new Set(["(idle)", "(program)", "(garbage collector)"]);

function label(node: ProfileNode): string {
  const frame = node.callFrame;
  const file = frame.url.replace(/^.*\/(lib|bench|node_modules)\//, "$1/");
  return `${frame.functionName || "(anonymous)"}  ${file}:${frame.lineNumber + 1}`;
}

export function topFunctions(profile: Profile, n: number, inclusive: boolean, filter = ""): string[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const time = new Map<string, number>();
  let busy = 0;
  let gc = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id)!;
    const us = profile.timeDeltas[i] ?? 0;
    if (node.callFrame.functionName === "(garbage collector)") gc += us;
    if (IDLE.has(node.callFrame.functionName)) return;
    busy += us;
    if (!inclusive) {
      const key = label(node);
      time.set(key, (time.get(key) ?? 0) + us);
      return;
    }
    // Each function once per sample, however deep its recursion.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const key = label(byId.get(at)!);
      if (!seen.has(key)) time.set(key, (time.get(key) ?? 0) + us);
      seen.add(key);
    }
  });
  const lines = [...time.entries()]
    .filter(([key]) => key.includes(filter))
    .sort((a, b) => b[1] - a[1])
    .slice(0, n);
  return [
    `busy ${(busy / 1000).toFixed(0)} ms, garbage collector ${(gc / 1000).toFixed(0)} ms (${inclusive ? "inclusive" : "self"} time)`,
    ...lines.map(([key, us]) => `${((100 * us) / busy).toFixed(1).padStart(5)}%  ${key}`),
  ];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { inclusive: { type: "boolean", default: false }, filter: { type: "string", default: "" } },
});
const [file, count] = positionals;
if (!file) {
  process.stderr.write("usage: node --import tsx bench/profile-top.ts <file.cpuprofile> [N] [--inclusive] [--filter TEXT]\n");
  process.exitCode = 2;
} else {
  const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
  console.log(topFunctions(profile, Number(count ?? 30), values.inclusive === true, values.filter).join("\n"));
}
