// `node --import tsx bench/profile-top.ts <file.cpuprofile> [N]`: the functions with the
// most self time in a V8 CPU profile (as written by `npm run bench -- --cpu-prof DIR`),
// with their share of the busy (non-idle) time.
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const IDLE = new Set(["(idle)", "(program)", "(garbage collector)"]);

export function topSelfTime(profile: Profile, n: number): string[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  let busy = 0;
  let gc = 0;
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)!.callFrame;
    const us = profile.timeDeltas[i] ?? 0;
    if (frame.functionName === "(garbage collector)") gc += us;
    if (IDLE.has(frame.functionName)) return;
    busy += us;
    const file = frame.url.replace(/^.*\/(lib|bench|node_modules)\//, "$1/").replace(/^node:/, "node:");
    const key = `${frame.functionName || "(anonymous)"}  ${file}:${frame.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + us);
  });
  const lines = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);
  return [
    `busy ${(busy / 1000).toFixed(0)} ms, garbage collector ${(gc / 1000).toFixed(0)} ms`,
    ...lines.map(([key, us]) => `${((100 * us) / busy).toFixed(1).padStart(5)}%  ${key}`),
  ];
}

const [file, count] = process.argv.slice(2);
if (!file) {
  process.stderr.write("usage: node --import tsx bench/profile-top.ts <file.cpuprofile> [N]\n");
  process.exitCode = 2;
} else {
  console.log(topSelfTime(JSON.parse(readFileSync(file, "utf8")) as Profile, Number(count ?? 30)).join("\n"));
}
