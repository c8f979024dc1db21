// The registry's operations, one implementation for `hub_gateway tool …` and
// `/admin/api/tools…`: each checks the tool as it would be after the change (gateway.json's
// rules, the registry's allow-lists, its files), then writes it, raises the version and
// reports the change to the audit hook. A change that leaves the tool as it was writes
// nothing (scripts may run twice).
import { isDeepStrictEqual } from "node:util";
import type { GatewayConfig } from "../config/gateway-config.ts";
import { isRecord } from "../../util/guards.ts";
import type { RecordStore } from "../contracts/interfaces.ts";
import type { ToolAuditEntry } from "./audit-hook.ts";
import { bumpVersion, checkRegistered, REGISTRY, type RawTool, type RegisteredTool } from "./records.ts";

export type RegistryErrorCode =
  | "HUBMCP_BAD_IMPORT"
  | "HUBMCP_NO_SUCH_TOOL"
  | "HUBMCP_NO_SUCH_REVISION"
  | "HUBMCP_TOOL_IN_CONFIG"
  | "HUBMCP_REVISION_EXISTS"
  | "HUBMCP_DEFAULT_REVISION";

export class RegistryError extends Error {
  constructor(
    readonly code: RegistryErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** What a change did. */
export type Outcome = "added" | "updated" | "removed" | "unchanged";

export interface RegistryContext {
  /** gateway.json as the caller read it: its own tools and its `registry` section. */
  readonly config: Pick<GatewayConfig, "registry" | "tools">;
  /** Who asks, for the records and the audit trail. */
  readonly who: string;
  /** Told of each change made (the admin API's audit trail); none from the CLI. */
  readonly onChange?: (entry: ToolAuditEntry) => void;
}

/** One revision's definition as the CLI builds it (`{"app": …}`, `{"url": …}`, …). */
export type RawRevision = Record<string, unknown>;

export interface RevisionChange {
  readonly revision?: string;
  readonly spec?: RawRevision;
  readonly groups?: readonly string[];
  /** Make `revision` the one requests without `?revision=` get. */
  readonly makeDefault?: boolean;
}

function revisionsOf(tool: RawTool): Record<string, RawRevision> {
  return { ...(tool.revisions as Record<string, RawRevision>) };
}

function defaultOf(tool: RawTool): string {
  return typeof tool.defaultRevision === "string" ? tool.defaultRevision : "default";
}

export class ToolRegistry {
  readonly #store: RecordStore;
  readonly #ctx: RegistryContext;

  constructor(store: RecordStore, ctx: RegistryContext) {
    this.#store = store;
    this.#ctx = ctx;
  }

  async list(): Promise<Array<{ name: string; record: RegisteredTool }>> {
    const all = await this.#store.list<RegisteredTool>(REGISTRY);
    return all.map(({ id, value }) => ({ name: id, record: value })).sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  async has(name: string): Promise<boolean> {
    return (await this.#store.get(REGISTRY, name)) !== undefined;
  }

  async show(name: string): Promise<RegisteredTool> {
    const found = await this.#store.get<RegisteredTool>(REGISTRY, name);
    if (!found) throw noSuchTool(name);
    return found;
  }

  /** A new tool, or a new revision of a registered one; the same revision again is no change. */
  async add(name: string, change: RevisionChange & { spec: RawRevision }): Promise<Outcome> {
    const revision = change.revision ?? "default";
    return this.#change("add", name, revision, (cur) => {
      if (!cur) {
        return {
          ...(change.groups ? { groups: change.groups } : {}),
          revisions: { [revision]: change.spec },
          ...(revision === "default" ? {} : { defaultRevision: revision }),
        };
      }
      const revisions = revisionsOf(cur);
      if (Object.hasOwn(revisions, revision) && !isDeepStrictEqual(revisions[revision], change.spec))
        throw new RegistryError("HUBMCP_REVISION_EXISTS", `tool ${name} already has a revision ${revision} defined otherwise; use tool update`);
      revisions[revision] = change.spec;
      return withChanges(cur, revisions, revision, change);
    });
  }

  /** Changes a registered tool: a revision's definition (the default one unless named), its groups, its default. */
  async update(name: string, change: RevisionChange): Promise<Outcome> {
    return this.#change("update", name, change.revision, (cur) => {
      if (!cur) throw noSuchTool(name);
      const revisions = revisionsOf(cur);
      const revision = change.revision ?? defaultOf(cur);
      if (change.spec) revisions[revision] = change.spec;
      else if (!Object.hasOwn(revisions, revision)) throw noSuchRevision(name, revision);
      return withChanges(cur, revisions, revision, change);
    });
  }

  /** The whole tool, or one revision that is not its default. */
  async remove(name: string, revision: string | undefined, now: boolean): Promise<Outcome> {
    return this.#change(
      "remove",
      name,
      revision,
      (cur) => {
        if (!cur) throw noSuchTool(name);
        if (revision === undefined) return undefined;
        const revisions = revisionsOf(cur);
        if (!Object.hasOwn(revisions, revision)) throw noSuchRevision(name, revision);
        if (defaultOf(cur) === revision)
          throw new RegistryError(
            "HUBMCP_DEFAULT_REVISION",
            `${revision} is tool ${name}'s default revision; make another the default first, or remove the tool`,
          );
        delete revisions[revision];
        // A catalog listed from the revision removed is listed from the default again.
        const { catalogRevision, ...rest } = cur;
        return { ...rest, ...(catalogRevision === undefined || catalogRevision === revision ? {} : { catalogRevision }), revisions };
      },
      now,
    );
  }

  /** The tool as given, whatever was registered before (the admin API's PUT, and each tool of an import). */
  put(name: string, tool: RawTool, action: "put" | "import" = "put"): Promise<Outcome> {
    return this.#change(action, name, undefined, () => tool);
  }

  /**
   * Many tools at once: every one is checked before any is written, so a list with one
   * mistake changes nothing. Answers how many of each outcome.
   */
  async import(list: unknown): Promise<Record<Outcome, number>> {
    if (!Array.isArray(list) || !list.every((t) => isRecord(t) && typeof t.name === "string")) {
      throw new RegistryError("HUBMCP_BAD_IMPORT", 'the import must be a JSON list of tools, each an object with a "name"');
    }
    const tools = (list as Array<{ name: string } & RawTool>).map(({ name, ...tool }) => ({ name, tool }));
    for (const { name, tool } of tools) {
      this.#notInConfig(name);
      await checkRegistered(name, tool, this.#ctx.config);
    }
    const counts: Record<Outcome, number> = { added: 0, updated: 0, removed: 0, unchanged: 0 };
    for (const { name, tool } of tools) counts[await this.put(name, tool, "import")]++;
    return counts;
  }

  #notInConfig(name: string): void {
    if (Object.hasOwn(this.#ctx.config.tools, name))
      throw new RegistryError("HUBMCP_TOOL_IN_CONFIG", `tool ${name} is defined in gateway.json; change it there, or remove it there first`);
  }

  /**
   * Reads the tool, works out the new one (undefined: remove it), checks it, then writes it
   * only if the record is still as read: two writers never lose each other's change.
   */
  async #change(
    action: ToolAuditEntry["action"],
    name: string,
    revision: string | undefined,
    edit: (cur: RawTool | undefined) => RawTool | undefined,
    now = false,
  ): Promise<Outcome> {
    this.#notInConfig(name);
    for (;;) {
      const before = await this.#store.get<RegisteredTool>(REGISTRY, name);
      const after = edit(before?.tool);
      if (after !== undefined && isDeepStrictEqual(after, before?.tool)) return "unchanged";
      if (after !== undefined) await checkRegistered(name, after, this.#ctx.config);
      const written = after === undefined ? await this.#removeIfSame(name, before) : await this.#writeIfSame(name, before, after);
      if (!written) continue;
      await bumpVersion(this.#store, now);
      this.#ctx.onChange?.({ who: this.#ctx.who, action, tool: name, ...(revision ? { revision } : {}), before: before?.tool, after });
      return after === undefined ? "removed" : before ? "updated" : "added";
    }
  }

  async #writeIfSame(name: string, before: RegisteredTool | undefined, tool: RawTool): Promise<boolean> {
    const record: RegisteredTool = { tool, by: this.#ctx.who, at: new Date().toISOString() };
    if (!before) return this.#store.create(REGISTRY, name, record);
    const stored = await this.#store.update<RegisteredTool>(REGISTRY, name, (cur) => (isDeepStrictEqual(cur, before) ? record : undefined));
    return stored === record || isDeepStrictEqual(stored, record);
  }

  async #removeIfSame(name: string, before: RegisteredTool | undefined): Promise<boolean> {
    const cur = await this.#store.get<RegisteredTool>(REGISTRY, name);
    if (!isDeepStrictEqual(cur, before)) return false;
    await this.#store.delete(REGISTRY, name);
    return true;
  }
}

function withChanges(cur: RawTool, revisions: Record<string, RawRevision>, revision: string, change: RevisionChange): RawTool {
  return {
    ...cur,
    ...(change.groups ? { groups: change.groups } : {}),
    revisions,
    ...(change.makeDefault ? { defaultRevision: revision } : {}),
  };
}

function noSuchTool(name: string): RegistryError {
  return new RegistryError("HUBMCP_NO_SUCH_TOOL", `tool ${name} is not registered`);
}

function noSuchRevision(name: string, revision: string): RegistryError {
  return new RegistryError("HUBMCP_NO_SUCH_REVISION", `tool ${name} has no revision ${revision}`);
}
