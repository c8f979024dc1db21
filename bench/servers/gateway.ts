// The hub gateway in front of a tool server the bench started: one tool, `add`, whose
// `url` revision is that server, with accounts and tokens in a data dir (or a Postgres
// database) the bench made. The per-user rate limit is lifted: the bench measures the hop,
// not the limiter's 429s.
import { FileRecordStore, parseGatewayConfig, PostgresRecordStore, startGateway } from "../../lib/gateway/index.ts";
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { readdirSync } from "node:fs";
import { tracingConfig } from "../../lib/telemetry/config.ts";
import { BatchExporter } from "../../lib/telemetry/exporter.ts";
import type { SpanRecord } from "../../lib/telemetry/span.ts";
import { SPAN_CHANNEL } from "../../lib/telemetry/tracer.ts";
import { join } from "node:path";
import type { BenchServer } from "./types.ts";

export const GATEWAY_TOOL = "add";

/** Tools of the "hub300" gateway, each a `url` revision of the same tool server, for listing at /mcp. */
export const HUB_TOOLS = 300;

/**
 * `args`: the data dir or a postgres:// URL (its password in HUBMCP_STORE_PASSWORD, as
 * `hub_gateway --store` takes it), the tool server's base URL, and "cached" (the default settings),
 * "uncached" (lookupCacheSeconds 0: the data dir read on every request, to show what the
 * cache saves), "local-limit" (cached, the rate limit per process even on Postgres: what
 * counting it in the database costs), "hub300" (`add` and 300 more tools, all listed on one /mcp page),
 * "traced" (cached, every request's span exported over OTLP to the sink URL given fourth, sampler 100 %
 * unless a fifth names another OTEL_TRACES_SAMPLER), "toggled" (cached, tracing off until
 * `setTracing(true)`, then every span exported to the sink as "traced" does, by the exporter the
 * library's diagnostics channel feeds, as an app running its own would)
 * or "rappture" (instead of the tool server's URL, a folder of Rappture tools, `NAME/tool.xml`,
 * each a `rappture` revision; all listed on one /mcp page).
 */
/** Each `<folder>/<name>/tool.xml` as the tool `<name>`. */
function rappturesIn(folder: string): Record<string, unknown> {
  const tools: Record<string, unknown> = {};
  for (const name of readdirSync(folder).sort()) tools[name] = { revisions: { default: { rappture: join(folder, name, "tool.xml") } } };
  return tools;
}

export async function startGatewayServer(args: readonly string[]): Promise<BenchServer> {
  const [location, upstream, lookups = "cached", sink, sampler = "always_on"] = args;
  if (!location || !upstream) throw new Error("the gateway bench server needs a data dir or postgres:// URL and an upstream URL");
  const postgres = location.startsWith("postgres:")
    ? await PostgresRecordStore.open({ url: location, password: process.env.HUBMCP_STORE_PASSWORD || undefined })
    : undefined;
  // parseGatewayConfig resolves paths against a directory; a database has none of its own.
  const dataDir = postgres ? process.cwd() : location;
  const tools: Record<string, unknown> = lookups === "rappture" ? rappturesIn(upstream) : { [GATEWAY_TOOL]: { revisions: { default: { url: upstream } } } };
  if (lookups === "hub300") for (let i = 0; i < HUB_TOOLS; i++) tools[`t${i}`] = { revisions: { default: { url: upstream } } };
  const config = parseGatewayConfig(
    {
      tools,
      ...(lookups === "hub300" || lookups === "rappture" ? { connector: { pageSize: 1000 } } : {}),
      // One bench user drives every connection: the per-person bounds are lifted as far as they go.
      limits: { ratePerSecond: 1e9, rateBurst: 1e9, upstreamRequestsPerUser: 128, ...(lookups === "uncached" ? { lookupCacheSeconds: 0 } : {}) },
    },
    dataDir,
  );
  // As `hub_gateway --store postgres://…` runs it: the per-person rate limit counted in the database.
  const gateway = await startGateway({
    config,
    store: postgres ?? new FileRecordStore(dataDir),
    sharedLimits: postgres !== undefined && lookups !== "local-limit",
    // Tracing off unless asked: the bench's own environment must not turn it on for the other rows.
    telemetryEnv: lookups === "traced" && sink ? { OTEL_EXPORTER_OTLP_ENDPOINT: sink, OTEL_TRACES_SAMPLER: sampler } : {},
  });
  // Gateway sessions are sealed ids the gateway does not hold: there is nothing to count.
  return {
    port: gateway.port,
    sessions: () => null,
    ...(lookups === "toggled" && sink ? { setTracing: toggler(sink) } : {}),
    close: async () => {
      await gateway.close();
      await postgres?.close();
    },
  };
}

/**
 * Turns tracing on and off in a running gateway: a subscriber on the span channel makes its
 * tracer active, and hands each span to an exporter. Turned off, it resolves once every span
 * queued has been exported, so a slice with tracing on pays for all its spans' export.
 */
function toggler(sink: string): (on: boolean) => Promise<void> {
  const config = tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: sink }, "hub_gateway");
  if (!config?.endpoint) throw new Error("the sink URL is no OTLP endpoint");
  const exporter = new BatchExporter({ ...config, endpoint: config.endpoint });
  const onSpan = (span: unknown): void => {
    if ((span as SpanRecord).sampled) exporter.add(span as SpanRecord);
  };
  return async (on) => {
    if (on) subscribe(SPAN_CHANNEL, onSpan);
    else {
      unsubscribe(SPAN_CHANNEL, onSpan);
      await exporter.flush();
    }
  };
}
