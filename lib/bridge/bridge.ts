// The host-facing side: reads the host's JSON-RPC messages and hands them to the relay
// (../federation/relay.ts) over one gateway endpoint per tool (./upstream.ts). What stays
// here is what a stdio host needs: the retry policy, the sentences a failure is told in
// (./failures.ts, logged once each), delivering what cannot be written as JSON, and closed
// input (every request read before it answered; the tools' questions refused from then on).
import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import { classify, ErrorCode, failure } from "../util/jsonrpc.ts";
import { isRecord } from "../util/guards.ts";
import type { BridgeConfig } from "./config.ts";
import { describeFailure } from "./failures.ts";
import { McpClientError } from "../federation/client-failure.ts";
import { Relay } from "../federation/relay.ts";
import { DEFAULT_RETRY, Upstream, UpstreamGaveUp, type RetryPolicy } from "./upstream.ts";

export interface BridgeOptions {
  retry?: RetryPolicy;
  /** Reported as serverInfo.version when several tools are merged. */
  version?: string;
  /** Diagnostics (one line each); the CLI sends them to stderr. */
  log?: (line: string) => void;
}

const HOST_GONE = { code: ErrorCode.InternalError, message: "The client has closed its input and cannot answer" };

export class Bridge {
  readonly config: BridgeConfig;
  readonly relay: Relay<Upstream>;
  readonly #send: (message: unknown) => void;
  readonly #log: (line: string) => void;
  readonly #agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
  /** Answers being worked out for the host's requests, so closed input can wait for them. */
  readonly #answering = new Set<Promise<void>>();
  /** Failure messages already logged, so a tool that stays down does not flood stderr. */
  readonly #logged = new Set<string>();

  constructor(config: BridgeConfig, send: (message: unknown) => void, options: BridgeOptions = {}) {
    this.config = config;
    this.#log = options.log ?? (() => {});
    this.#send = (message) => this.#deliver(send, message);
    const context = {
      token: config.token,
      retry: options.retry ?? DEFAULT_RETRY,
      agents: this.#agents,
      onServerMessage: (upstream: Upstream, message: Record<string, unknown>) => this.relay.fromServer(upstream, message),
      log: (line: string) => this.#log(line),
    };
    this.relay = new Relay({
      servers: config.tools.map((target) => new Upstream(target, context)),
      send: this.#send,
      explain: (upstream, err) => this.explain(upstream, err),
      serverInfo: { name: "hub_bridge", version: options.version ?? "0.0.0" },
    });
  }

  /** One message from the host. Never throws. */
  receive(value: unknown): void {
    const incoming = classify(value);
    switch (incoming.kind) {
      case "invalid":
        if (incoming.id !== null) this.#send(failure(incoming.id, incoming.error));
        return;
      case "request": {
        const answering = this.relay.handle(incoming.message).then((reply) => {
          if (reply) this.#send(reply);
        });
        this.#answering.add(answering);
        void answering.finally(() => this.#answering.delete(answering));
        return;
      }
      case "notification":
        return void this.relay.notified(incoming.message.method, incoming.message.params);
      case "response":
        return this.relay.answered(incoming.message);
    }
  }

  /**
   * The host closed its input: resolves once every request read before that is answered (as
   * `start_mcp --stdio` does). A tool's question to the host can no longer be answered, so it
   * gets an error at once, now and from then on, rather than holding its call.
   */
  async inputClosed(): Promise<void> {
    this.relay.refuseServerRequests(HOST_GONE);
    while (this.#answering.size > 0) await Promise.all(this.#answering);
  }

  /** Ends every tool session (best effort) and stops whatever is still running. */
  async close(): Promise<void> {
    this.relay.close();
    await Promise.all(this.relay.servers.map((u) => u.close()));
    this.#agents.http.destroy();
    this.#agents.https.destroy();
  }

  /** The user-facing sentence for an upstream failure, logged once per distinct sentence. */
  explain(upstream: Upstream, err: unknown): string {
    const text =
      err instanceof UpstreamGaveUp
        ? describeFailure(err.failure, upstream.target.tool, this.config.api, err.attempts)
        : err instanceof McpClientError
          ? describeFailure(err.failure, upstream.target.tool, this.config.api)
          : `Tool ${upstream.target.tool} failed: ${err instanceof Error ? err.message : String(err)}`;
    if (!this.#logged.has(text)) {
      this.#logged.add(text);
      this.#log(text);
    }
    return text;
  }

  /**
   * Sends to the host. A message that cannot be written as JSON (a tool's answer nested
   * deeper than JSON.stringify can recurse) becomes a JSON-RPC error for its request, or
   * is dropped with a log line, so one hostile answer never stops the bridge.
   */
  #deliver(send: (message: unknown) => void, message: unknown): void {
    try {
      send(message);
    } catch (err) {
      const why = err instanceof RangeError ? "nested too deeply" : "not expressible as JSON";
      const id = isRecord(message) && !("method" in message) ? message.id : undefined;
      if (typeof id === "string" || typeof id === "number") {
        send(failure(id, { code: ErrorCode.InternalError, message: `The tool's answer could not be relayed: it is ${why}` }));
      } else this.#log(`dropped a message from a tool: it is ${why}`);
    }
  }
}
