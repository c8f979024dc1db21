// The Mcp-Session-Id the gateway hands out: the routing facts of an MCP session sealed
// with AES-256-GCM under a key shared through the data dir. Any replica can open it, so
// no replica keeps session state, and a client cannot forge or alter one: a changed byte
// fails authentication and the id is treated as unknown.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/** What a gateway session id binds. */
export interface SessionBinding {
  /** Account the session was minted for; another user's request naming it gets 404. */
  readonly user: string;
  readonly tool: string;
  readonly revision: string;
  /** The tool session (running server) it lives on; a restarted tool session ends it. */
  readonly instance: string;
  /** The session id the tool server minted. */
  readonly upstream: string;
}

const VERSION = "g1";
const AAD = Buffer.from("hubmcp gateway session v1");

/** Ids opened lately: a client sends its id with every request, and opening one costs a decryption. */
const OPENED_KEPT = 10_000;

export class SessionSealer {
  readonly #opened = new Map<string, SessionBinding>();

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new TypeError("session key must be 32 bytes");
  }

  seal(binding: SessionBinding): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(AAD);
    const plain = Buffer.from(JSON.stringify([binding.user, binding.tool, binding.revision, binding.instance, binding.upstream]));
    const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return `${VERSION}.${sealed.toString("base64url")}`;
  }

  /** The binding, or null for anything not sealed by this data dir's key. */
  open(id: string): SessionBinding | null {
    const known = this.#opened.get(id);
    if (known) return known;
    const binding = this.#decrypt(id);
    // Only ids that opened are kept (forgeries never are), so the map holds real sessions.
    if (binding) {
      if (this.#opened.size >= OPENED_KEPT) this.#opened.delete(this.#opened.keys().next().value!);
      this.#opened.set(id, Object.freeze(binding));
    }
    return binding;
  }

  #decrypt(id: string): SessionBinding | null {
    if (id.length > 4096 || !id.startsWith(`${VERSION}.`)) return null;
    const text = id.slice(VERSION.length + 1);
    const raw = Buffer.from(text, "base64url");
    // Only the exact text seal() made: the decoder skips stray characters, and an id that
    // opened is remembered, so aliases of one id must not each take a place.
    if (raw.length < 12 + 16 + 2 || raw.toString("base64url") !== text) return null;
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.key, raw.subarray(0, 12));
      decipher.setAAD(AAD);
      decipher.setAuthTag(raw.subarray(raw.length - 16));
      const plain = Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]);
      const parts: unknown = JSON.parse(plain.toString("utf8"));
      if (!Array.isArray(parts) || parts.length !== 5 || !parts.every((p) => typeof p === "string")) return null;
      const [user, tool, revision, instance, upstream] = parts as string[];
      return { user: user!, tool: tool!, revision: revision!, instance: instance!, upstream: upstream! };
    } catch {
      return null;
    }
  }
}
