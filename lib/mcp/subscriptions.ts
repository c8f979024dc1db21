// Which sessions asked for `notifications/resources/updated` about which URIs. Kept
// beside the session rather than in it, and forgotten when the session ends.
import type { Session } from "../session/session.ts";

export class ResourceSubscriptions {
  readonly #bySession = new WeakMap<Session, Set<string>>();

  add(session: Session, uri: string): void {
    let uris = this.#bySession.get(session);
    if (!uris) {
      const created = (uris = new Set());
      this.#bySession.set(session, created);
      session.onEnd(() => created.clear());
    }
    uris.add(uri);
  }

  remove(session: Session, uri: string): void {
    this.#bySession.get(session)?.delete(uri);
  }

  has(session: Session, uri: string): boolean {
    return this.#bySession.get(session)?.has(uri) ?? false;
  }
}
