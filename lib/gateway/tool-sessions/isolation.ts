// People's MCP sessions on `"isolation": "shared"` revisions, where one tool server serves
// everyone. The sealed session id already binds each session to its person (another
// person's id opens as "unknown"); what this adds is fairness: a person holds at most
// `sessionsPerUser` sessions there, and a session unused for `idleTimeoutMs` is ended on
// the tool server (DELETE), as a person's own tool session would have been stopped.
// Kept per replica: a session used only through another replica is ended after its idle
// time here (its next request gets 404, and the client initializes again).
import type { GatewayConfig } from "../config/gateway-config.ts";
import { send, type Upstream } from "../relay/forward.ts";
import { GatewayError } from "../contracts/respond.ts";
import { tooManyForUser } from "./caps.ts";

/** The `user` of a shared tool session's record: no person's name is empty. */
export const EVERYONE = "";

const DELETE_TIMEOUT_MS = 5_000;

interface Entry {
  user: string;
  /** The (tool, revision) it lives on, and that tool server's instance. */
  place: string;
  instance: string;
  upstream: Upstream;
  session: string;
  last: number;
}

/** Whether a revision runs one tool server for everyone. */
export function isShared(config: GatewayConfig, tool: string, revision: string): boolean {
  const spec = config.tools[tool]?.revisions[revision];
  return (spec?.kind === "app" || spec?.kind === "rappture") && spec.isolation === "shared";
}

/** What a request is, as far as a shared revision's rules go. */
export interface SharedUse {
  /** An MCP 2026-07-28 request (by its MCP-Protocol-Version header): it runs in no session, whatever it names. */
  readonly stateless: boolean;
  /** Whether it runs in the caller's own MCP session on the tool server (an initialize opens one). */
  readonly inSession: boolean;
  /** A REST call (`POST …/tools/{name}`), which MCP sessions do not reach. */
  readonly rest?: boolean;
}

/**
 * What a request may do on a revision, decided here for every path to a tool server (the
 * per-tool routes, /mcp, legacy SSE): on a shared one, only what runs in the caller's own MCP
 * session. Outside one, whatever the tool server keeps per server rather than per session (the
 * sessionless task and job stores, the legacy broadcasts) is everyone's, so a task one person
 * made could be read by anyone naming its id. Throws `session_required`.
 */
export function checkSharedUse(shared: boolean, use: SharedUse): void {
  if (!shared) return;
  if (use.rest) throw new GatewayError("session_required", "This tool revision is shared: call its tools over MCP");
  if (use.stateless || !use.inSession) {
    throw new GatewayError("session_required", "This tool revision is shared: requests need an MCP session (initialize first, protocol 2025-11-25 or earlier)");
  }
}

export class SharedSessions {
  readonly #entries = new Map<string, Entry>();
  readonly #perUser = new Map<string, Set<string>>();
  /** Places held for sessions still opening, per person: counted, so concurrent opens cannot all pass. */
  readonly #pending = new Map<string, number>();

  constructor(
    private readonly limits: Pick<GatewayConfig["limits"], "sessionsPerUser" | "idleTimeoutMs">,
    private readonly onEvent: (event: string, fields: Record<string, unknown>) => void,
  ) {}

  /**
   * Refuses (429, as for tool sessions) when `user` already holds their most sessions on
   * shared revisions. Sessions of an instance that has since ended are dropped first.
   */
  admit(user: string, tool: string, revision: string, instance: string): void {
    const mine = this.#perUser.get(user);
    const place = `${tool}\n${revision}`;
    for (const id of [...(mine ?? [])]) {
      const e = this.#entries.get(id)!;
      if (e.place === place && e.instance !== instance) this.#drop(id);
    }
    const held = (this.#perUser.get(user)?.size ?? 0) + (this.#pending.get(user) ?? 0);
    if (held >= this.limits.sessionsPerUser) throw tooManyForUser(this.limits.sessionsPerUser);
  }

  /**
   * `admit`, and holds the place until the returned release (call it once the session is
   * recorded with `use`, or failed to open): between the count and the record, no other
   * concurrent open of the same person's passes on that place.
   */
  reserve(user: string, tool: string, revision: string, instance: string): () => void {
    this.admit(user, tool, revision, instance);
    this.#pending.set(user, (this.#pending.get(user) ?? 0) + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const left = this.#pending.get(user)! - 1;
      if (left === 0) this.#pending.delete(user);
      else this.#pending.set(user, left);
    };
  }

  /** Records a use of a session (a new one, or one minted elsewhere and seen here first). */
  use(user: string, tool: string, revision: string, instance: string, upstream: Upstream, session: string, now = Date.now()): void {
    const id = `${instance}\n${session}`;
    const known = this.#entries.get(id);
    if (known) {
      known.last = now;
      return;
    }
    this.#entries.set(id, { user, place: `${tool}\n${revision}`, instance, upstream, session, last: now });
    let mine = this.#perUser.get(user);
    if (!mine) this.#perUser.set(user, (mine = new Set()));
    mine.add(id);
  }

  /** The person ended the session themselves. */
  ended(instance: string, session: string): void {
    this.#drop(`${instance}\n${session}`);
  }

  /** Ends, on their tool server, the sessions unused for the idle time. */
  async sweep(now = Date.now()): Promise<void> {
    const idle = [...this.#entries].filter(([, e]) => now - e.last >= this.limits.idleTimeoutMs);
    await Promise.all(
      idle.map(async ([id, e]) => {
        this.#drop(id);
        const status = await send(e.upstream, { method: "DELETE", path: "mcp", headers: {}, session: e.session }, AbortSignal.timeout(DELETE_TIMEOUT_MS)).then(
          (answer) => (answer.resume(), answer.statusCode),
          () => "unreachable",
        );
        this.onEvent("shared MCP session idle; ended", { status });
      }),
    );
  }

  #drop(id: string): void {
    const e = this.#entries.get(id);
    if (!e) return;
    this.#entries.delete(id);
    const mine = this.#perUser.get(e.user)!;
    mine.delete(id);
    if (mine.size === 0) this.#perUser.delete(e.user);
  }
}
