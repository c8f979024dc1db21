// What start_mcp serves for an `app` or `rappture` revision, and the `slurm` form that runs it
// as a batch job: parsed from gateway.json, each problem one line naming the key (through
// `fail`, as ./config.ts reports it).
import { isAbsolute, resolve } from "node:path";
import { isRecord } from "../util/guards.ts";

type Fail = (key: string, problem: string) => never;

/** The file start_mcp serves: an app (`--app`) or a Rappture tool.xml (`--rappture`). */
export type Served = { readonly app: string } | { readonly rappture: string };

/** A tool session as one Slurm batch job running start_mcp (docs/scale-out.md, "Tool sessions as Slurm jobs"). */
export type SlurmRevision = Served & {
  /** A folder the gateway and every compute node see: per-session folders and state directories go there. */
  readonly workdir: string;
  readonly partition?: string;
  readonly time?: string;
  /** More sbatch options, each one argv entry (`--mem=2G`). */
  readonly sbatch: readonly string[];
};

/** The served file's key in gateway.json, which is also start_mcp's flag for it. */
export function servedFile(served: Served): { key: "app" | "rappture"; file: string } {
  return "app" in served ? { key: "app", file: served.app } : { key: "rappture", file: served.rappture };
}

const FILE_PROBLEM = { app: "must be a file path", rappture: "must be the path of a Rappture tool.xml" } as const;

/** The app or tool.xml path under `key`, resolved against the config's folder. */
export function parseServed(v: Record<string, unknown>, key: string, baseDir: string, fail: Fail): Served {
  const k = "rappture" in v ? "rappture" : "app";
  const p = v[k];
  if (typeof p !== "string" || p === "") fail(`${key}.${k}`, FILE_PROBLEM[k]);
  const file = isAbsolute(p) ? p : resolve(baseDir, p);
  return k === "app" ? { app: file } : { rappture: file };
}

/** Slurm names and times: no spaces or shell-ish characters, one argv entry each. */
const SLURM_WORD = /^[A-Za-z0-9][A-Za-z0-9_.:,+-]{0,127}$/;

export function parseSlurmRevision(v: unknown, key: string, baseDir: string, fail: Fail): SlurmRevision {
  if (!isRecord(v)) return fail(key, "must be an object");
  for (const k of Object.keys(v)) if (!["app", "rappture", "workdir", "partition", "time", "sbatch"].includes(k)) fail(`${key}.${k}`, "is not a known key");
  if ("app" in v && "rappture" in v) fail(key, 'must have one of "app", "rappture", not both');
  const file = parseServed(v, key, baseDir, fail);
  const workdir = v.workdir;
  if (typeof workdir !== "string" || workdir === "") fail(`${key}.workdir`, "must be a folder path (one the compute nodes see too)");
  const word = (k: "partition" | "time"): string | undefined => {
    if (v[k] === undefined) return undefined;
    if (typeof v[k] !== "string" || !SLURM_WORD.test(v[k])) fail(`${key}.${k}`, "must be a Slurm name or time, without spaces");
    return v[k];
  };
  const sbatch = v.sbatch ?? [];
  if (!Array.isArray(sbatch) || !sbatch.every((o) => typeof o === "string" && /^--?[A-Za-z]/.test(o) && !o.includes("\n"))) {
    fail(`${key}.sbatch`, 'must be an array of sbatch options, each starting with "-" ("--mem=2G")');
  }
  const partition = word("partition");
  const time = word("time");
  return {
    ...file,
    workdir: isAbsolute(workdir) ? workdir : resolve(baseDir, workdir),
    ...(partition ? { partition } : {}),
    ...(time ? { time } : {}),
    sbatch: sbatch as string[],
  };
}
