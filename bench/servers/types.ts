/** A server under test, as the bench child process runs it. */
export interface BenchServer {
  port: number;
  /** Live MCP sessions, where the server has them. */
  sessions(): number | null;
  close(): Promise<void>;
}

export type ServerKind = "baseline" | "hubmcp" | "gateway" | "proxy" | "raw-relay";
