// Rows measured by a module other work owns: schema validation (bench/schema.ts). It may
// be missing or broken while that work is in progress; the table then shows a stub row
// instead of failing the whole run.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Row } from "../row.ts";
import { atLeast, TARGETS } from "../targets.ts";

interface SchemaRow {
  name: string;
  opsPerSec: number;
  baselineOpsPerSec: number;
  ratio: number;
}

type Loaded<T> = { kind: "ok"; value: T } | { kind: "missing" } | { kind: "failed"; message: string };

async function call<T>(file: string, exportName: string, quick: boolean): Promise<Loaded<T>> {
  const url = new URL(file, import.meta.url);
  if (!existsSync(fileURLToPath(url))) return { kind: "missing" };
  try {
    const mod = (await import(url.href)) as Record<string, unknown>;
    const fn = mod[exportName];
    if (typeof fn !== "function") return { kind: "failed", message: `${file} does not export ${exportName}()` };
    return { kind: "ok", value: (await (fn as (o: { quick: boolean }) => unknown)({ quick })) as T };
  } catch (err) {
    return { kind: "failed", message: err instanceof Error ? err.message.split("\n")[0]! : String(err) };
  }
}

function stub(name: string, loaded: Exclude<Loaded<unknown>, { kind: "ok" }>, file: string): Row {
  const why = loaded.kind === "missing" ? `${file} not present yet` : `failed: ${loaded.message}`;
  return { name, result: "n/a", note: why, checks: [] };
}

const opsPerSec = (n: number): string => (n >= 1e6 ? `${(n / 1e6).toFixed(1)} M` : `${Math.round(n / 1e3)} k`);

export async function schemaRows(quick: boolean): Promise<Row[]> {
  const loaded = await call<SchemaRow[]>("../schema.ts", "schemaRows", quick);
  if (loaded.kind !== "ok") return [stub("schema validation", loaded, "bench/schema.ts")];
  return loaded.value.map((r) => ({
    name: `schema: ${r.name}`,
    ratio: r.ratio,
    result: `${opsPerSec(r.opsPerSec)} validations/s`,
    note: `hand-written check of the same shape: ${opsPerSec(r.baselineOpsPerSec)} validations/s`,
    checks: [atLeast("validations/s", { value: r.ratio, digits: 2, unit: "× hand-written" }, TARGETS.schemaRatio)],
  }));
}
