// Many `GET /sse` clients, each on its own socket, counting the `message` events each has
// seen, so the runner can time how long one broadcast takes to reach all of them.
import { connect, type Socket } from "node:net";

const MARK = Buffer.from("event: message\n");
const READY = Buffer.from("event: endpoint\n");

/**
 * A raw socket rather than node:http: the client side's cost lands in the measured time,
 * and a bare socket scanning bytes is the cheapest honest reader there is.
 */
class Client {
  readonly #socket: Socket;
  messages = 0;
  #tail: Buffer = Buffer.alloc(0);

  constructor(port: number, onEvent: () => void, ready: (err?: Error) => void) {
    let first = true;
    let connected = false;
    this.#socket = connect({ host: "127.0.0.1", port, noDelay: true }, () => {
      this.#socket.write(`GET /sse HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n\r\n`);
    });
    this.#socket.on("data", (chunk: Buffer) => {
      // A mark may straddle two reads: search the previous read's tail too (one byte
      // shorter than the mark, so no mark is counted twice).
      const bytes = this.#tail.length ? Buffer.concat([this.#tail, chunk]) : chunk;
      if (first) {
        first = false;
        if (bytes.subarray(0, 12).toString("latin1") !== "HTTP/1.1 200") return ready(new Error("GET /sse was refused"));
      }
      if (!connected) {
        if (bytes.includes(READY)) {
          connected = true;
          ready();
        }
      }
      for (let at = bytes.indexOf(MARK); at !== -1; at = bytes.indexOf(MARK, at + MARK.length)) {
        this.messages++;
        onEvent();
      }
      this.#tail = Buffer.from(bytes.subarray(Math.max(0, bytes.length - (MARK.length - 1))));
    });
    this.#socket.once("error", (err) => ready(err));
  }

  close(): void {
    this.#socket.destroy();
  }
}

export class SseClients {
  readonly #clients: Client[] = [];
  #waiter: { round: number; done: () => void } | null = null;
  #reached = 0;

  /** Opens `count` streams, `batch` connection attempts at a time (the listen backlog is finite). */
  static async open(port: number, count: number, batch = 100): Promise<SseClients> {
    const pool = new SseClients();
    for (let i = 0; i < count; i += batch) {
      const n = Math.min(batch, count - i);
      await Promise.all(
        Array.from(
          { length: n },
          () =>
            new Promise<void>((resolve, reject) => {
              const client = new Client(
                port,
                () => pool.#onEvent(client),
                (err) => (err ? reject(err) : resolve()),
              );
              pool.#clients.push(client);
            }),
        ),
      );
    }
    return pool;
  }

  get size(): number {
    return this.#clients.length;
  }

  /** Resolves once every client has seen at least `round` messages. */
  allReached(round: number): Promise<void> {
    this.#reached = this.#clients.filter((c) => c.messages >= round).length;
    if (this.#reached === this.#clients.length) return Promise.resolve();
    return new Promise((done) => (this.#waiter = { round, done }));
  }

  #onEvent(client: Client): void {
    const w = this.#waiter;
    if (w && client.messages === w.round && ++this.#reached === this.#clients.length) {
      this.#waiter = null;
      w.done();
    }
  }

  close(): void {
    for (const c of this.#clients) c.close();
  }
}
