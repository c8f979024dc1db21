// Small HTTP helpers for specs: JSON-RPC posts and a line-by-line SSE reader over real sockets.
import { request, type IncomingMessage } from "node:http";

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export const rpc = (id: number | string, method: string, params?: Record<string, unknown>) =>
  params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params };

export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

/** An open event stream; `next()` resolves with the next event (or rejects when the stream ends). */
export interface EventReader {
  response: IncomingMessage;
  next(): Promise<SseEvent>;
  close(): void;
}

export function openEvents(url: string, headers: Record<string, string> = {}): Promise<EventReader> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: "text/event-stream", ...headers } }, (response) => {
      const queue: SseEvent[] = [];
      const waiters: { resolve: (e: SseEvent) => void; reject: (err: Error) => void }[] = [];
      let buffer = "";
      let ended = false;
      let current: SseEvent = { event: "message", data: "" };
      let hasData = false;
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        buffer += chunk;
        let nl: number;
        while ((nl = buffer.indexOf("\n")) !== -1) {
          const line = buffer.slice(0, nl).replace(/\r$/, "");
          buffer = buffer.slice(nl + 1);
          if (line === "") {
            if (hasData) {
              const waiter = waiters.shift();
              if (waiter) waiter.resolve(current);
              else queue.push(current);
            }
            current = { event: "message", data: "" };
            hasData = false;
          } else if (!line.startsWith(":")) {
            const colon = line.indexOf(":");
            const field = colon === -1 ? line : line.slice(0, colon);
            const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
            if (field === "event") current.event = value;
            else if (field === "id") current.id = value;
            else if (field === "data") {
              current.data = hasData ? `${current.data}\n${value}` : value;
              hasData = true;
            }
          }
        }
      });
      const end = (): void => {
        ended = true;
        for (const w of waiters.splice(0)) w.reject(new Error("stream ended"));
      };
      response.on("end", end);
      response.on("close", end);
      resolve({
        response,
        next: () => {
          const item = queue.shift();
          if (item) return Promise.resolve(item);
          if (ended) return Promise.reject(new Error("stream ended"));
          return new Promise((res, rej) => waiters.push({ resolve: res, reject: rej }));
        },
        close: () => req.destroy(),
      });
    });
    req.on("error", reject);
    req.end();
  });
}
