// `--python-env NAME`: find the conda environment through `conda info --json` and give
// the server's process its bin directory first on PATH, so tools that spawn `python`
// run inside it.
import { basename, delimiter, join } from "node:path";
import { capture, type Captured } from "./exec.ts";

export type CondaLookup = { kind: "found"; prefix: string; vars: Record<string, string> } | { kind: "error"; message: string };

interface CondaInfo {
  envs?: unknown;
  root_prefix?: unknown;
}

/** Environment names mapped to prefixes; the root prefix is `base`. */
export function condaEnvironments(info: CondaInfo): Map<string, string> {
  const out = new Map<string, string>();
  if (typeof info.root_prefix === "string") out.set("base", info.root_prefix);
  if (Array.isArray(info.envs)) {
    for (const prefix of info.envs) {
      if (typeof prefix !== "string" || prefix === info.root_prefix) continue;
      if (!out.has(basename(prefix))) out.set(basename(prefix), prefix);
    }
  }
  return out;
}

export function condaVars(name: string, prefix: string, path: string | undefined): Record<string, string> {
  const bin = join(prefix, "bin");
  return {
    PATH: path ? `${bin}${delimiter}${path}` : bin,
    CONDA_PREFIX: prefix,
    CONDA_DEFAULT_ENV: name,
  };
}

/** Turns `conda info --json` output into the variables to set, or a message. */
export function resolveConda(name: string, result: Captured, path: string | undefined): CondaLookup {
  if (result.kind === "missing") return { kind: "error", message: "--python-env needs conda, and no `conda` command was found on PATH" };
  if (result.kind === "failed" || result.code !== 0) return { kind: "error", message: "`conda info --json` failed; cannot find conda environments" };
  let info: CondaInfo;
  try {
    info = JSON.parse(result.stdout) as CondaInfo;
  } catch {
    return { kind: "error", message: "`conda info --json` printed something that is not JSON" };
  }
  const envs = condaEnvironments(info ?? {});
  const byPath = [...envs.entries()].find(([, prefix]) => prefix === name);
  const found = byPath ?? (envs.has(name) ? [name, envs.get(name)!] : undefined);
  if (!found) {
    const names = [...envs.keys()].sort();
    return { kind: "error", message: `conda environment "${name}" not found; available: ${names.length > 0 ? names.join(", ") : "none"}` };
  }
  return { kind: "found", prefix: found[1], vars: condaVars(found[0], found[1], path) };
}

export async function lookupConda(name: string, env: NodeJS.ProcessEnv): Promise<CondaLookup> {
  return resolveConda(name, await capture("conda", ["info", "--json"], { env }), env.PATH);
}
