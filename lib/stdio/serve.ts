// MCP's stdio transport (MCP basic/transports "stdio"): the client launches the server and
// they exchange JSON-RPC messages, one per line, on its stdin and stdout. Nothing else may
// reach stdout; the library itself never writes anywhere else (logs go to the logger).
// The whole connection is one session, so elicitation, sampling, roots, logging levels and
// cancellation work as they do over HTTP.
import type { Readable, Writable } from "node:stream";
import { serveMessage, type Protocol } from "../mcp/protocol.ts";
import { replyOf } from "../mcp/outcome.ts";
import type { Exchange } from "../mcp/exchange.ts";
import type { Session, SessionStream } from "../session/session.ts";
import type { SessionStore } from "../session/session-table.ts";
import { ErrorCode, failure, type JsonRpcMessage, type JsonRpcResponse } from "../util/jsonrpc.ts";
import { failureFields, type Logger } from "../util/logger.ts";
import { lineWriter, readLines } from "./framing.ts";

export interface StdioOptions {
  /** Where messages arrive; process.stdin by default. */
  input?: Readable;
  /** Where messages go; process.stdout by default. Nothing else is ever written to it. */
  output?: Writable;
  /** Longest message line in bytes; a longer one is answered with a parse error and skipped. 16 MiB by default. */
  maxLineBytes?: number;
  /** How long close() waits for running calls once input ends; 5 s by default. */
  closeTimeoutMs?: number;
}

export interface StdioServer {
  /** The session the connection runs in. */
  readonly sessionId: string;
  /** Settles once the input ended (the client closed stdin) and running calls finished or timed out. */
  readonly closed: Promise<void>;
  /** Stops reading, ends the session and waits (bounded) for running calls. Safe to call twice. */
  close(): Promise<void>;
}

export function serveStdio(protocol: Protocol, sessions: SessionStore, logger: Logger, options: StdioOptions, onClose: () => void): StdioServer {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const maxLine = options.maxLineBytes ?? 16 * 1024 * 1024;
  const session: Session | null = sessions.create();
  if (!session) throw new Error("Too many sessions to serve stdio");
  // A desktop client may stay idle for hours: the connection, not idle time, ends this session.
  const release = session.hold();
  const connection = new AbortController();
  const running = new Set<Promise<void>>();
  let ended = false;

  // A host that goes away breaks the pipe: the connection ends instead of the process.
  const lines = lineWriter(output, () => void close());
  const write = (message: JsonRpcMessage | JsonRpcResponse[]): boolean => !ended && lines(message);
  const stream: SessionStream = { kind: "stdio", send: write, close: () => {} };
  session.streams.add(stream);
  const exchange: Exchange = { session, signal: connection.signal, send: write };

  const dispatch = (body: unknown): void => {
    // A request carrying the 2026-07-28 `_meta` envelope is served statelessly, outside the session.
    const work = serveMessage(protocol, body, exchange).then(
      (outcome) => {
        const reply = replyOf(outcome);
        if (reply !== null) write(reply);
      },
      (err: unknown) => logger.error("stdio message failed", { ...failureFields(err) }),
    );
    running.add(work);
    void work.finally(() => running.delete(work));
  };
  const malformed = (reason: "parse" | "too-long"): void => {
    // An endless line would only grow memory: it is answered once and dropped through its end.
    if (reason === "too-long") write(failure(null, { code: ErrorCode.InvalidRequest, message: `Invalid Request: message longer than ${maxLine} bytes` }));
    else write(failure(null, { code: ErrorCode.ParseError, message: "Parse error" }));
  };

  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      // A paused stream no longer keeps the process alive (process.stdin stays open when a stop signal ends serving).
      stopReading();
      connection.abort(new Error("The stdio connection closed"));
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<void>((done) => (timer = setTimeout(done, options.closeTimeoutMs ?? 5000)));
      await Promise.race([Promise.allSettled([...running]), limit]);
      clearTimeout(timer);
      lines.flush();
      ended = true;
      session.streams.delete(stream);
      release();
      sessions.delete(session.id);
      onClose();
      markClosed();
    })());

  const stopReading = readLines(input, { message: dispatch, malformed, end: () => void close() }, maxLine);
  return { sessionId: session.id, closed, close };
}
