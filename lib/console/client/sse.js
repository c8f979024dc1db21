// The text/event-stream parser (WHATWG "Interpreting an event stream"). Free of the DOM so
// spec/console/client/sse.spec.ts runs it in Node.

/** @typedef {{ event: string, data: string, id: string }} SseEvent */
/** @typedef {{ lastEventId: string, retry: number | null, push(chunk: string): void, end(): void }} SseParser */

/**
 * @param {(event: SseEvent) => void} onEvent
 * @returns {SseParser}
 */
export function createSseParser(onEvent) {
  let buffer = "";
  let started = false;
  /** @type {string[]} */
  let data = [];
  let hasData = false;
  let eventName = "";
  /** @type {SseParser} */
  const state = { lastEventId: "", retry: null, push: push, end: end };
  function dispatch() {
    if (hasData) onEvent({ event: eventName || "message", data: data.join("\n"), id: state.lastEventId });
    data = [];
    hasData = false;
    eventName = "";
  }
  /** @param {string} line */
  function field(line) {
    if (line === "") return dispatch();
    if (line.charAt(0) === ":") return;
    const colon = line.indexOf(":");
    const name = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.charAt(0) === " ") value = value.slice(1);
    if (name === "data") {
      data.push(value);
      hasData = true;
    } else if (name === "event") eventName = value;
    else if (name === "id") {
      if (value.indexOf("\u0000") === -1) state.lastEventId = value;
    } else if (name === "retry" && /^\d+$/.test(value)) state.retry = Number(value);
  }
  /** @param {string} chunk */
  function push(chunk) {
    if (!started && chunk.length > 0) {
      started = true;
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
    }
    buffer += chunk;
    for (;;) {
      const match = /\r\n|\r|\n/.exec(buffer);
      if (!match) return;
      // A lone CR at the end may be the first half of CRLF: wait for the next chunk.
      if (match[0] === "\r" && match.index === buffer.length - 1) return;
      const line = buffer.slice(0, match.index);
      buffer = buffer.slice(match.index + match[0].length);
      field(line);
    }
  }
  // End of stream: an unterminated event is dropped, as the standard says.
  function end() {
    buffer = "";
    data = [];
    hasData = false;
  }
  return state;
}
