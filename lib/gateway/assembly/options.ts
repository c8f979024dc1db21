// What `startGateway` is given and what it gives back: the gateway's public embedding surface
// (re-exported by ../server.ts and ../index.ts).
import type { Server } from "node:http";
import type { GatewayConfig } from "../config/gateway-config.ts";
import type { AuthorizationServer, RecordStore, TokenVerifier } from "../contracts/interfaces.ts";
import type { Backend, LaunchRequest } from "../backends/index.ts";
import type { AuditTrail } from "../audit/trail.ts";
import type { LiveTools } from "../tool-registry/live.ts";

export interface GatewayOptions {
  config: GatewayConfig;
  /** Accounts, tokens, keys and the tool session registry; share it between replicas. */
  store: RecordStore;
  /** 127.0.0.1 by default. */
  host?: string;
  /** 0 (a free port) by default. */
  port?: number;
  /** Overrides the config's publicUrl; by default the config's, else the listening address. */
  publicUrl?: string;
  /** Bearer checks, first non-null answer wins; API tokens of `store` by default. */
  verifiers?: readonly TokenVerifier[];
  /** Served before the gateway's own routes; its verifier joins `verifiers`. */
  authorizationServer?: AuthorizationServer;
  /** Receives JSON lines: the access log and tool session events. Silent by default. */
  log?: (line: string) => void;
  /** Between keepalive comments on relayed event streams; 15 s. */
  keepaliveMs?: number;
  /** The environment tool session children start from; the gateway's own by default. */
  childEnv?: NodeJS.ProcessEnv;
  /** Where the OTEL_* settings (span export) are read; the gateway's own environment by default. */
  telemetryEnv?: NodeJS.ProcessEnv;
  /**
   * Count the per-person rate limit (and the OAuth server's, via its own option) in `store`,
   * so replicas sharing it share the limit: what this replica's own limit lets through is
   * written there, in batches per person (see store-limit.ts). For a database store.
   */
  sharedLimits?: boolean;
  /** How tool sessions start; for embedding and specs. */
  launch?: (req: LaunchRequest) => Promise<Backend>;
  /**
   * The tools served, gateway.json's and those registered in `store`, kept current; opened
   * here by default. Given when something else (the OAuth server) must see the same tools.
   */
  liveTools?: LiveTools;
  /**
   * The audit trail, when the caller shares it (the OAuth server's sign-ins go to it too);
   * by default one opened from the config's `audit` section and closed with the gateway.
   */
  audit?: AuditTrail;
}

export interface RunningGateway {
  /** Where this process listens, with a trailing slash. */
  readonly url: string;
  /** `{hub_url}`, no trailing slash. */
  readonly publicUrl: string;
  readonly port: number;
  readonly httpServer: Server;
  /** Stops listening and every tool session this process started. Safe twice. */
  close(): Promise<void>;
}

/** Where the gateway listens: 127.0.0.1 unless the options say. */
export const listenHost = (options: GatewayOptions): string => options.host ?? "127.0.0.1";
