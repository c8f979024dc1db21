// `hub_gateway tool add | update | remove | list | show | import` on a gateway's store: the
// tool registry (../tool-registry/) from a script. Each change is checked as gateway.json's
// tools are (with `--config`, against that file's `registry` allow-lists and its own tools),
// and reaches every running replica within lookupCacheSeconds.
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { toolChangeLine, type ToolAuditEntry } from "../tool-registry/audit-hook.ts";
import { ConfigError, type GatewayConfig } from "../config/gateway-config.ts";
import type { RecordStore } from "../contracts/interfaces.ts";
import { parseRegistrySettings } from "../config/registry-settings.ts";
import { RegistryError, ToolRegistry, type RawRevision } from "../tool-registry/registry.ts";
import { groupList, NAME, usage, type CliIo } from "./io.ts";
import { cliTrail, whoAmI } from "./trail.ts";

export interface ToolArgs {
  action: string | undefined;
  name: string | undefined;
  app?: string;
  url?: string;
  rappture?: string;
  /** The argv after `--`, with `--command`. */
  command?: readonly string[];
  revision?: string;
  groups?: string;
  isolation?: string;
  makeDefault: boolean;
  format?: string;
  now: boolean;
}

/** Without `--config`: no tools of the file's, and nothing beyond the defaults allowed. */
const NO_CONFIG: Pick<GatewayConfig, "registry" | "tools"> = {
  tools: {},
  registry: parseRegistrySettings(undefined, {}, (k, p) => {
    throw new ConfigError(k, p);
  }),
};

/** The revision the flags name, or a usage problem. */
function revisionFrom(a: ToolArgs): RawRevision | string | undefined {
  const given = [a.app, a.url, a.rappture, a.command].filter((v) => v !== undefined);
  if (given.length === 0) return a.isolation === undefined ? undefined : "--isolation needs --app or --rappture";
  if (given.length > 1) return "give one of --app, --url, --rappture, --command";
  const isolation = a.isolation === undefined ? {} : { isolation: a.isolation };
  if (a.app !== undefined) return { app: resolve(a.app), ...isolation };
  if (a.rappture !== undefined) return { rappture: resolve(a.rappture), ...isolation };
  if (a.isolation !== undefined) return "--isolation needs --app or --rappture";
  return a.url !== undefined ? { url: a.url } : { command: a.command };
}

function failure(io: CliIo, err: unknown): number {
  if (err instanceof ConfigError || (err instanceof RegistryError && err.code === "HUBMCP_BAD_IMPORT")) {
    io.err(`${NAME}: ${err.message}`);
    return 2;
  }
  if (!(err instanceof RegistryError)) throw err;
  io.err(`${NAME}: ${err.message}`);
  return 1;
}

export async function toolCommand(io: CliIo, store: RecordStore, config: GatewayConfig | undefined, a: ToolArgs): Promise<number> {
  const trail = cliTrail(io, config);
  const registry = new ToolRegistry(store, {
    config: config ?? NO_CONFIG,
    who: whoAmI(),
    // With --config naming a file trail, a change goes into it as the admin API's do: one
    // appended line, which a rotation by the running gateway leaves in one file or the next.
    ...(trail ? { onChange: (entry: ToolAuditEntry) => trail(toolChangeLine(entry)) } : {}),
  });
  if (!["add", "update", "remove", "list", "show", "import"].includes(a.action ?? "")) return usage(io, "tool needs add, update, remove, list, show or import");
  if (a.action === "list") {
    if (a.name !== undefined) return usage(io, "tool list takes no NAME");
    if (a.format !== undefined && a.format !== "json" && a.format !== "text") return usage(io, "--format must be json or text");
    return list(io, registry, config, a.format === "json");
  }
  if (!a.name) return usage(io, `tool ${a.action} needs a ${a.action === "import" ? "FILE" : "NAME"}`);
  const revision = revisionFrom(a);
  if (typeof revision === "string") return usage(io, revision);
  try {
    if (a.action === "show") {
      io.out(JSON.stringify({ name: a.name, ...(await registry.show(a.name)) }, null, 2));
      return 0;
    }
    if (a.action === "import") return await importFile(io, registry, a.name);
    const groups = a.groups === undefined ? {} : { groups: groupList(a.groups) };
    const change = { ...(a.revision === undefined ? {} : { revision: a.revision }), ...groups, makeDefault: a.makeDefault };
    let outcome: string;
    if (a.action === "remove") outcome = await registry.remove(a.name, a.revision, a.now);
    else if (a.action === "add") {
      if (!revision) return usage(io, "tool add needs one of --app, --url, --rappture, --command");
      outcome = await registry.add(a.name, { ...change, spec: revision });
    } else outcome = await registry.update(a.name, { ...change, ...(revision ? { spec: revision } : {}) });
    io.out(`tool ${a.name}${a.revision === undefined ? "" : ` revision ${a.revision}`}: ${outcome}`);
    return 0;
  } catch (err) {
    return failure(io, err);
  }
}

async function list(io: CliIo, registry: ToolRegistry, config: GatewayConfig | undefined, json: boolean): Promise<number> {
  const rows = [
    ...Object.entries(config?.tools ?? {}).map(([name, spec]) => ({
      name,
      source: "gateway.json",
      defaultRevision: spec.defaultRevision,
      revisions: Object.keys(spec.revisions),
      groups: [...spec.groups],
    })),
    ...(await registry.list()).map(({ name, record }) => ({
      name,
      source: "registry",
      defaultRevision: typeof record.tool.defaultRevision === "string" ? record.tool.defaultRevision : "default",
      revisions: Object.keys((record.tool.revisions ?? {}) as object),
      groups: Array.isArray(record.tool.groups) ? (record.tool.groups as string[]) : [],
      by: record.by,
      at: record.at,
    })),
  ];
  if (json) io.out(JSON.stringify(rows));
  else
    for (const r of rows)
      io.out(`${r.name}  ${r.source}  default=${r.defaultRevision}  revisions=${r.revisions.join(",")}  groups=${r.groups.join(",") || "-"}`);
  return 0;
}

async function importFile(io: CliIo, registry: ToolRegistry, file: string): Promise<number> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    io.err(`${NAME}: cannot read the import file`);
    return 2;
  }
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch {
    io.err(`${NAME}: the import file is not valid JSON`);
    return 2;
  }
  const counts = await registry.import(list);
  io.out(`imported: ${counts.added} added, ${counts.updated} updated, ${counts.unchanged} unchanged`);
  return 0;
}
