// The types the HTTP app and its routes share, apart from both so neither imports the other.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AsyncStore } from "../tasks/store.ts";
import type { ServerCore } from "../mcp/core.ts";
import type { Protocol } from "../mcp/protocol.ts";
import type { SessionStore } from "../session/session-table.ts";
import type { Session, SessionStream } from "../session/session.ts";
import type { SseStream } from "./sse.ts";
import type { JsonRpcMessage } from "../util/jsonrpc.ts";
import type { ReplayLimits, StreamDirectory } from "./event-stream.ts";
import type { HostGuard } from "./host-guard.ts";
import type { RequestUrl } from "./request-url.ts";

export interface HttpOptions {
  /** Largest accepted request body; 16 MiB by default. */
  maxBodyBytes: number;
  /** Interval of the SSE keepalive comment; 15 s by default. */
  keepaliveMs: number;
  /** Unread bytes a stream may hold before it is dropped; 4 MiB by default. */
  maxStreamBufferBytes: number;
  /** DNS-rebinding check of Host and Origin; null when off. */
  guard?: HostGuard | null;
  /** What each resumable stream keeps for Last-Event-ID replay, and the `retry` it announces. */
  replay?: Partial<ReplayLimits>;
  /** How long a POST to a legacy `/sse` session is held for its answer before it is released with 202. */
  sseHoldMs: number;
  /** Serve the browser tool console at `GET /` (Accept: text/html) and `console/*`; on unless false. */
  console?: boolean;
}

/**
 * A request as Express/Connect hand it to a mounted handler: the mount path is gone from
 * `url`; Express keeps it in `baseUrl`, Connect only leaves the whole path in `originalUrl`.
 */
export type MountedRequest = IncomingMessage & { baseUrl?: string; originalUrl?: string };
/** Express/Connect's `next`: called for requests this handler does not serve. */
export type Next = (err?: unknown) => void;
/** A node:http request listener that is also a Connect/Express middleware. */
export type RequestHandler = (req: IncomingMessage, res: ServerResponse, next?: Next) => void;

/** What a route reads and uses of the app it belongs to. */
export interface HttpState {
  readonly core: ServerCore;
  /** The protocol core: session and stateless servers. */
  readonly protocol: Protocol;
  readonly sessions: SessionStore;
  /** Background runs of async tools, for `POST /tools/<name>`. */
  readonly runs: AsyncStore;
  readonly options: HttpOptions;
  /** Registers a `GET /sse` or `GET /mcp` connection with its session and the app while it is open. */
  keepStream(session: Session, stream: SessionStream, connection: SseStream): void;
  /** Resumable streams (GET /mcp and SSE replies to POSTs) per session. */
  readonly streams: StreamDirectory;
  /** Counts a running call until it settles, so close() can wait for it. */
  track<T>(work: Promise<T>): Promise<T>;
  /** A route that failed after its handler returned: logged, and answered 500 if nothing was sent yet. */
  failed(res: ServerResponse, err: unknown): void;
  /** Sends a response to the legacy `/sse` streams it belongs to. */
  broadcast(message: JsonRpcMessage, sessionId: string | null): void;
}

export type RouteHandler = (app: HttpState, req: IncomingMessage, res: ServerResponse, url: RequestUrl) => void | Promise<void>;
