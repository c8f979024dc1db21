// The hub gateway in front of a tool server the bench started: one tool, `add`, whose
// `url` revision is that server, with accounts and tokens in a data dir the bench made.
// The per-user rate limit is lifted: the bench measures the hop, not the limiter's 429s.
import { FileRecordStore, MemoryRecordStore, parseGatewayConfig, startGateway, type RecordStore } from "../../lib/gateway/index.ts";
import type { BenchServer } from "./types.ts";

export const GATEWAY_TOOL = "add";

/**
 * The data dir's accounts and API tokens copied into memory: the same gateway without a file
 * read per lookup, to show what of the hop's cost is the file store's.
 */
async function inMemory(files: FileRecordStore): Promise<RecordStore> {
  const memory = new MemoryRecordStore();
  for (const collection of ["accounts", "api-tokens"]) {
    for (const { id, value } of await files.list(collection)) await memory.put(collection, id, value);
  }
  return memory;
}

/** `args`: the data dir, the tool server's base URL, and "file" or "memory" (the store the gateway reads). */
export async function startGatewayServer(args: readonly string[]): Promise<BenchServer> {
  const [dataDir, upstream, storeKind = "file"] = args;
  if (!dataDir || !upstream) throw new Error("the gateway bench server needs a data dir and an upstream URL");
  const config = parseGatewayConfig(
    { tools: { [GATEWAY_TOOL]: { revisions: { default: { url: upstream } } } }, limits: { ratePerSecond: 1e9, rateBurst: 1e9 } },
    dataDir,
  );
  const files = new FileRecordStore(dataDir);
  const gateway = await startGateway({ config, store: storeKind === "memory" ? await inMemory(files) : files });
  // Gateway sessions are sealed ids the gateway does not hold: there is nothing to count.
  return { port: gateway.port, sessions: () => null, close: () => gateway.close() };
}
