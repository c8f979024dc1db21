// Which sessions asked for `notifications/resources/updated` about which URIs. Kept
// beside the session rather than in it, and forgotten when the session ends.
import type { Session } from "../session/session.ts";

/** URIs one session may watch: templates let a client name endless URIs, so the set is capped. */
export const MAX_SUBSCRIPTIONS_PER_SESSION = 1000;

export class ResourceSubscriptions {
  readonly #bySession = new WeakMap<Session, Set<string>>();

  /** Returns false when the session already watches as many URIs as it may. */
  add(session: Session, uri: string): boolean {
    let uris = this.#bySession.get(session);
    if (!uris) {
      const created = (uris = new Set());
      this.#bySession.set(session, created);
      session.onEnd(() => created.clear());
    }
    if (!uris.has(uri) && uris.size >= MAX_SUBSCRIPTIONS_PER_SESSION) return false;
    uris.add(uri);
    return true;
  }

  remove(session: Session, uri: string): void {
    this.#bySession.get(session)?.delete(uri);
  }

  has(session: Session, uri: string): boolean {
    return this.#bySession.get(session)?.has(uri) ?? false;
  }
}
