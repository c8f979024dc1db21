// What start_mcp serves for an `app` or `rappture` revision, and the `slurm` form that runs it
// as a batch job: parsed from gateway.json, each problem one line naming the key (through
// `fail`, as ./gateway-config.ts reports it).
import { isAbsolute, resolve } from "node:path";
import { s, type Converted, type Filled, type Infer, problem, type Fail } from "../../schema/index.ts";

/** The served file's key in gateway.json, which is also start_mcp's flag for it. */
export function servedFile(served: Served): { key: "app" | "rappture"; file: string } {
  return "app" in served ? { key: "app", file: served.app } : { key: "rappture", file: served.rappture };
}

/** `app` and `rappture` as written in gateway.json: a path, relative ones against the config's folder. */
export const appSchema = problem(s.string({ minLength: 1 }), "must be a file path");
export const rapptureSchema = problem(s.string({ minLength: 1 }), "must be the path of a Rappture tool.xml");

/** Slurm names and times: no spaces or shell-ish characters, one argv entry each. */
const slurmWord = () => problem(s.string({ pattern: "^[A-Za-z0-9][A-Za-z0-9_.:,+-]{0,127}$" }).optional(), "must be a Slurm name or time, without spaces");

/** A `slurm` revision's value as written in gateway.json. */
export const slurmSchema = problem(
  s.object(
    {
      app: appSchema.optional(),
      rappture: rapptureSchema.optional(),
      /** A folder the gateway and every compute node see: per-session folders and state directories go there. */
      workdir: problem(s.string({ minLength: 1 }), "must be a folder path (one the compute nodes see too)"),
      partition: slurmWord(),
      time: slurmWord(),
      /** More sbatch options, each one argv entry (`--mem=2G`). */
      sbatch: problem(
        s.array(s.string({ pattern: "^--?[A-Za-z][^\\n]*$" })).optional(),
        'must be an array of sbatch options, each starting with "-" ("--mem=2G")',
      ),
    },
    { additionalProperties: false },
  ),
  "must be an object",
);
export type SlurmFile = Infer<typeof slurmSchema>;

/** The file start_mcp serves: an app (`--app`) or a Rappture tool.xml (`--rappture`), its path resolved. */
export type Served = { readonly app: Infer<typeof appSchema> } | { readonly rappture: Infer<typeof rapptureSchema> };

/** A tool session as one Slurm batch job running start_mcp (docs/scale-out.md, "Tool sessions as Slurm jobs"). */
export type SlurmRevision = Served & Converted<Filled<Omit<SlurmFile, "app" | "rappture">, "sbatch">>;

const resolved = (baseDir: string, p: string): string => (isAbsolute(p) ? p : resolve(baseDir, p));

/** The app or tool.xml path of a checked revision (or its `slurm` value), resolved against the config's folder. */
export function parseServed(v: { app?: string; rappture?: string }, key: string, baseDir: string, fail: Fail): Served {
  if (v.rappture !== undefined) return { rappture: resolved(baseDir, v.rappture) };
  if (v.app === undefined) return fail(`${key}.app`, "must be a file path");
  return { app: resolved(baseDir, v.app) };
}

export function parseSlurmRevision(v: SlurmFile, key: string, baseDir: string, fail: Fail): SlurmRevision {
  if (v.app !== undefined && v.rappture !== undefined) fail(key, 'must have one of "app", "rappture", not both');
  return {
    ...parseServed(v, key, baseDir, fail),
    workdir: resolved(baseDir, v.workdir),
    ...(v.partition ? { partition: v.partition } : {}),
    ...(v.time ? { time: v.time } : {}),
    sbatch: v.sbatch ?? [],
  };
}
