// The hub gateway in front of a tool server the bench started: one tool, `add`, whose
// `url` revision is that server, with accounts and tokens in a data dir the bench made.
// The per-user rate limit is lifted: the bench measures the hop, not the limiter's 429s.
import { FileRecordStore, parseGatewayConfig, startGateway } from "../../lib/gateway/index.ts";
import type { BenchServer } from "./types.ts";

export const GATEWAY_TOOL = "add";

/**
 * `args`: the data dir, the tool server's base URL, and "cached" (the default settings) or
 * "uncached" (lookupCacheSeconds 0: the data dir read on every request, to show what the cache saves).
 */
export async function startGatewayServer(args: readonly string[]): Promise<BenchServer> {
  const [dataDir, upstream, lookups = "cached"] = args;
  if (!dataDir || !upstream) throw new Error("the gateway bench server needs a data dir and an upstream URL");
  const config = parseGatewayConfig(
    {
      tools: { [GATEWAY_TOOL]: { revisions: { default: { url: upstream } } } },
      // One bench user drives every connection: the per-person bounds are lifted as far as they go.
      limits: { ratePerSecond: 1e9, rateBurst: 1e9, upstreamRequestsPerUser: 128, ...(lookups === "uncached" ? { lookupCacheSeconds: 0 } : {}) },
    },
    dataDir,
  );
  const gateway = await startGateway({ config, store: new FileRecordStore(dataDir) });
  // Gateway sessions are sealed ids the gateway does not hold: there is nothing to count.
  return { port: gateway.port, sessions: () => null, close: () => gateway.close() };
}
