import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A server under test, as the bench child process runs it. */
export interface BenchServer {
  port: number;
  /** Live MCP sessions, where the server has them. */
  sessions(): number | null;
  /** Turns its tracing on or off while it runs, where it can (the gateway started "toggled"). */
  setTracing?(on: boolean): void | Promise<void>;
  close(): Promise<void>;
}

export type ServerKind = "baseline" | "hubmcp" | "gateway" | "proxy" | "raw-relay";

/** Listens on a free loopback port; close() runs `alsoOnClose` (streams, pools), then cuts connections. */
export function listenOnLoopback(server: Server, alsoOnClose: () => void = () => {}): Promise<BenchServer> {
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      resolve({
        port: (server.address() as AddressInfo).port,
        sessions: () => null,
        close: () =>
          new Promise<void>((done) => {
            alsoOnClose();
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
