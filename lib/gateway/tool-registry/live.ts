// The tools a running gateway serves: gateway.json's, then those registered in the store,
// read again whenever the registry's version moves (checked every lookupCacheSeconds, one
// small record). Everything that reads `config.tools` reads them through the config this
// gives out, so a change reaches every route, the hub connector and the tool sessions at
// once. A registered tool that fails its checks (a record written by hand, a file since
// made writable by others, a name gateway.json took since) is left out with one log line;
// the others are served.
import type { GatewayConfig, ToolSpec } from "../config/gateway-config.ts";
import type { RecordStore } from "../contracts/interfaces.ts";
import { checkRegistered, readVersion, REGISTRY, type RegisteredTool } from "./records.ts";

export interface ToolsChange {
  /** Tools added, removed, or changed in any way. */
  readonly tools: readonly string[];
  /** The change asked for the sessions of removed revisions to end at once (`--now`). */
  readonly now: boolean;
}

export interface LiveToolsOptions {
  readonly store: RecordStore;
  readonly config: GatewayConfig;
  /** Between reads of the registry's version; the config's lookupCacheSeconds by default. */
  readonly pollMs?: number;
  event?(name: string, fields: Record<string, unknown>): void;
}

/** The smallest interval between reads of the version, whatever lookupCacheSeconds says. */
const MIN_POLL_MS = 100;

export class LiveTools {
  readonly #o: LiveToolsOptions;
  /** The config with `tools` read from here. */
  readonly config: GatewayConfig;
  /** The config as gateway.json has it: its own tools only. */
  readonly fileConfig: GatewayConfig;
  #tools: Readonly<Record<string, ToolSpec>>;
  /** Each registered tool as last read, and what it parsed to (null: refused). */
  readonly #seen = new Map<string, { json: string; spec: ToolSpec | null }>();
  #version: number | undefined = -1;
  #timer: NodeJS.Timeout | undefined;
  #polling: Promise<void> | undefined;
  readonly #listeners: Array<(change: ToolsChange) => void> = [];

  private constructor(options: LiveToolsOptions) {
    this.#o = options;
    this.#tools = options.config.tools;
    this.fileConfig = options.config;
    const config = { ...options.config };
    Object.defineProperty(config, "tools", { get: () => this.#tools, enumerable: true });
    this.config = config;
  }

  /** Reads the registry once, then keeps reading its version on a clock. */
  static async open(options: LiveToolsOptions): Promise<LiveTools> {
    const live = new LiveTools(options);
    await live.refresh();
    const every = Math.max(MIN_POLL_MS, options.pollMs ?? options.config.limits.lookupCacheMs);
    live.#timer = setInterval(
      () => void live.refresh().catch((err: unknown) => live.#event("tool registry unreadable", { error: String(err).slice(0, 200) })),
      every,
    );
    live.#timer.unref();
    return live;
  }

  /** Reads the version, and the tools when it moved; one read at a time. */
  refresh(): Promise<void> {
    this.#polling ??= this.#refresh().finally(() => (this.#polling = undefined));
    return this.#polling;
  }

  /** Called after each change of the tools served. */
  listen(listener: (change: ToolsChange) => void): void {
    this.#listeners.push(listener);
  }

  close(): void {
    clearInterval(this.#timer);
  }

  async #refresh(): Promise<void> {
    const version = await readVersion(this.#o.store);
    if (version?.n === this.#version) return;
    const records = await this.#o.store.list<RegisteredTool>(REGISTRY);
    const next: Record<string, ToolSpec> = { ...this.#o.config.tools };
    const changed = new Set<string>();
    const present = new Set<string>();
    for (const { id: name, value } of records) {
      present.add(name);
      const spec = await this.#parse(name, value, changed);
      if (spec) next[name] = spec;
    }
    for (const name of this.#seen.keys()) {
      if (present.has(name)) continue;
      this.#seen.delete(name);
      changed.add(name);
    }
    this.#tools = Object.freeze(next);
    const first = this.#version === -1;
    this.#version = version?.n;
    if (first || changed.size === 0) return;
    for (const listener of this.#listeners) listener({ tools: [...changed], now: version?.now === true });
  }

  /** A record parsed once per content: a registry of a thousand tools is not checked again for each change. */
  async #parse(name: string, value: RegisteredTool, changed: Set<string>): Promise<ToolSpec | null> {
    const json = JSON.stringify(value.tool);
    const seen = this.#seen.get(name);
    if (seen?.json === json) return seen.spec;
    changed.add(name);
    let spec: ToolSpec | null = null;
    if (Object.hasOwn(this.#o.config.tools, name))
      this.#event("registered tool skipped", { tool: name, error: "gateway.json defines a tool of this name; its definition is served" });
    else {
      try {
        spec = await checkRegistered(name, value.tool, this.#o.config);
      } catch (err) {
        this.#event("registered tool skipped", { tool: name, error: err instanceof Error ? err.message.slice(0, 300) : "unknown" });
      }
    }
    this.#seen.set(name, { json, spec });
    return spec;
  }

  #event(name: string, fields: Record<string, unknown>): void {
    this.#o.event?.(name, fields);
  }
}
