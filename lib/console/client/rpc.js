// An MCP client over streamable HTTP. One session; each POST accepts
// an event stream, whose notifications and server requests go to the call that opened it;
// a GET stream carries what belongs to no open POST (task progress, list changes).
import { createSseParser } from "./sse.js";

/** What the server (or an app) sent: JSON, unchecked, so read defensively. @typedef {any} Wire */
/** The run a request belongs to, if any: its id is noted, and aborting it aborts the request. @typedef {{ requestId: number | null, abort?: AbortController }} CallRef */
/**
 * What the page does with what the server sends besides answers.
 * @typedef {object} ClientHooks
 * @property {(message: Wire, call: any) => void} onNotification
 * @property {(message: Wire, call: any) => unknown} onRequest
 * @property {(err: Error) => void} onError
 * @property {() => void} onNewSession the server forgot the session (it restarted, e.g. under start_mcp --watch) and a new one began
 */
/**
 * @typedef {object} Client
 * @property {(request: Wire) => Promise<Wire>} initialize
 * @property {(method: string, params?: Wire, call?: CallRef) => Promise<Wire>} request
 * @property {(method: string, params?: Wire) => Promise<void>} notify
 * @property {() => Promise<boolean>} listen resolves once the GET stream is open (true) or refused (false)
 * @property {() => void} close
 * @property {string | null} sessionId
 */
class RpcError extends Error {
  /** @param {Wire} error */
  constructor(error) {
    super(error && error.message ? String(error.message) : "Unknown error");
    this.code = error && error.code;
    this.data = error && error.data;
  }
}

/**
 * @param {string} endpoint
 * @param {ClientHooks} hooks
 * @returns {Client}
 */
export function createClient(endpoint, hooks) {
  /** @type {string | null} */
  let sessionId = null;
  let nextId = 1;
  /** @type {{ request: Wire, negotiated: string } | null} */
  let initParams = null;
  /** @type {AbortController | null} */
  let streamAbort = null;
  let listening = 0;

  /** @param {Record<string, string>} [extra] */
  function headers(extra) {
    /** @type {Record<string, string>} */
    const h = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    if (sessionId) h["mcp-session-id"] = sessionId;
    if (initParams) h["mcp-protocol-version"] = initParams.negotiated;
    return Object.assign(h, extra || {});
  }

  /**
   * @param {Response} res
   * @param {(event: import("./sse.js").SseEvent) => void} onEvent
   */
  async function readStream(res, onEvent) {
    const reader = /** @type {ReadableStream<Uint8Array>} */ (res.body).getReader();
    const decoder = new TextDecoder();
    const parser = createSseParser(onEvent);
    try {
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) break;
        parser.push(decoder.decode(chunk.value, { stream: true }));
      }
    } finally {
      parser.end();
    }
    return parser;
  }

  /** @param {Response} res */
  async function httpError(res) {
    let text = "";
    try {
      /** @type {Wire} */
      const body = await res.json();
      text = (body && (body.error && body.error.message ? body.error.message : body.error)) || "";
    } catch { text = ""; }
    return new Error("HTTP " + res.status + (text ? ": " + text : ""));
  }

  // Messages that are not the awaited response: notifications and requests from the server.
  /** @param {Wire} message @param {CallRef | null | undefined} call */
  function route(message, call) {
    if (message.method && message.id !== undefined) {
      Promise.resolve(hooks.onRequest(message, call)).then(
        function (result) { return send({ jsonrpc: "2.0", id: message.id, result: result }); },
        function (err) {
          const code = err && typeof err.code === "number" ? err.code : -32603;
          return send({ jsonrpc: "2.0", id: message.id, error: { code: code, message: String(err && err.message || err) } });
        },
      ).catch(function (err) { hooks.onError(err); });
    } else if (message.method) {
      hooks.onNotification(message, call);
    }
  }

  /** @param {object} message */
  async function send(message) {
    const res = await fetch(endpoint, { method: "POST", headers: headers(), body: JSON.stringify(message) });
    if (!res.ok) throw await httpError(res);
    if (res.body) await res.body.cancel();
  }

  /**
   * @param {string} method
   * @param {Wire} params
   * @param {CallRef | undefined} call
   * @param {boolean} retried
   * @returns {Promise<Wire>}
   */
  async function post(method, params, call, retried) {
    const id = nextId++;
    if (call) call.requestId = id;
    const res = await fetch(endpoint, {
      method: "POST",
      headers: headers(),
      body: JSON.stringify({ jsonrpc: "2.0", id: id, method: method, params: params || {} }),
      signal: call && call.abort ? call.abort.signal : undefined,
    });
    // An expired session: start a new one once and repeat the request.
    if (res.status === 404 && sessionId && initParams && !retried && method !== "initialize") {
      await renew();
      return post(method, params, call, true);
    }
    if (method === "initialize" && res.headers.get("mcp-session-id")) sessionId = res.headers.get("mcp-session-id");
    const type = res.headers.get("content-type") || "";
    /** @type {Wire} */
    let reply = null;
    if (type.indexOf("text/event-stream") === 0) {
      await readStream(res, function (event) {
        if (event.event !== "message" || event.data === "") return;
        let message;
        try { message = JSON.parse(event.data); } catch { return; }
        if (message.id === id && !message.method) reply = message;
        else route(message, call);
      });
    } else if (type.indexOf("application/json") === 0) {
      reply = await res.json();
      if (!res.ok && !(reply && reply.error)) throw await httpError(res);
    } else if (!res.ok) {
      throw await httpError(res);
    }
    if (!reply) throw new Error("The server closed the stream without an answer");
    if (reply.error) throw new RpcError(reply.error);
    return reply.result;
  }

  /** A new session for a forgotten one; the page then reloads what the old server listed. */
  async function renew() {
    sessionId = null;
    await initialize(/** @type {{ request: Wire }} */ (initParams).request);
    listen();
    hooks.onNewSession();
  }

  /** @param {Wire} request */
  async function initialize(request) {
    const result = await post("initialize", request, undefined, false);
    initParams = { request: request, negotiated: result.protocolVersion };
    await send({ jsonrpc: "2.0", method: "notifications/initialized" });
    return result;
  }

  // The GET stream: resolves once it is open (or refused); reconnects with Last-Event-ID
  // after the server's retry delay while the session lives.
  function listen() {
    const generation = ++listening;
    if (streamAbort) streamAbort.abort();
    return new Promise(function (/** @type {(open: boolean) => void} */ ready) {
      (async function () {
        let lastEventId = "";
        let retry = 1000;
        while (sessionId && generation === listening) {
          streamAbort = new AbortController();
          try {
            const h = headers({ accept: "text/event-stream" });
            delete h["content-type"];
            if (lastEventId) h["last-event-id"] = lastEventId;
            const res = await fetch(endpoint, { method: "GET", headers: h, signal: streamAbort.signal });
            // The stream ended because the server restarted: it no longer knows the session.
            if (res.status === 404 && initParams && generation === listening) {
              await renew();
              break;
            }
            if (!res.ok || !res.body) break;
            ready(true);
            const parser = await readStream(res, function (event) {
              if (event.event !== "message" || event.data === "") return;
              let message;
              try { message = JSON.parse(event.data); } catch { return; }
              route(message, null);
            });
            lastEventId = parser.lastEventId;
            if (parser.retry !== null) retry = parser.retry;
          } catch {
            if (streamAbort.signal.aborted) break;
          }
          await new Promise(function (resolve) { setTimeout(resolve, retry); });
        }
        ready(false);
      })();
    });
  }

  return {
    initialize: initialize,
    request: function (method, params, call) { return post(method, params, call, false); },
    notify: function (method, params) { return send({ jsonrpc: "2.0", method: method, params: params || {} }); },
    listen: listen,
    // Leaving the page ends the session at once rather than at its idle timeout.
    close: function () {
      if (streamAbort) streamAbort.abort();
      if (!sessionId) return;
      const h = headers();
      delete h["content-type"];
      sessionId = null;
      fetch(endpoint, { method: "DELETE", headers: h, keepalive: true }).catch(function () { /* the page is going away */ });
    },
    get sessionId() { return sessionId; },
  };
}
