// A /mcp session's links, one per tool it uses: what relays read (../relay.ts) and what the
// session table writes through to the store (./sessions.ts), so every replica uses the same
// MCP session on each tool server.
import type { Upstream } from "../relay/forward.ts";
import type { ToolSessionRecord } from "../tool-sessions/records.ts";

/** One tool as this client uses it: the tool session and the MCP session on it. */
export interface Link {
  readonly tool: string;
  readonly rec: ToolSessionRecord;
  /** Where its requests go, on the gateway's connections. */
  readonly up: Upstream;
  readonly session: string | undefined;
}

/**
 * Per tool, its link once started (shared by concurrent first uses). Written through to the
 * store when a started link settles, so other replicas use the same MCP session on the tool.
 */
export class Links extends Map<string, Promise<Link>> {
  readonly #started: (tool: string, link: Link) => void;
  /** Each link that has settled, read without waiting on one still starting. */
  readonly #settled = new Map<string, Link>();
  /** Links written down before they were handed out (ConnectorSession.keep): not written again. */
  readonly kept = new WeakSet<Link>();

  constructor(started: (tool: string, link: Link) => void) {
    super();
    this.#started = started;
  }

  override set(tool: string, link: Promise<Link>): this {
    super.set(tool, link);
    this.#settled.delete(tool);
    link.then(
      (l) => {
        if (this.get(tool) !== link) return;
        this.#settled.set(tool, l);
        if (!this.kept.has(l)) this.#started(tool, l);
      },
      () => undefined,
    );
    return this;
  }

  override delete(tool: string): boolean {
    this.#settled.delete(tool);
    return super.delete(tool);
  }

  /** The link to `tool` once settled; undefined while none is, or one is starting. */
  settled(tool: string): Link | undefined {
    return this.#settled.get(tool);
  }

  /** Whether a link to `tool` is starting here now. */
  starting(tool: string): boolean {
    return this.has(tool) && !this.#settled.has(tool);
  }

  /** A link another replica started, taken as it is (nothing to write back). */
  adopt(tool: string, link: Link): void {
    super.set(tool, Promise.resolve(link));
    this.#settled.set(tool, link);
  }
}
