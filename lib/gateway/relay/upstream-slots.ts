// How many requests one person may have running on one tool server at once. The pooled
// connections to a tool server are shared by everyone who uses it (a `url` revision serves
// many people), so without a per-person bound one person's slow calls would hold them all
// and every other person's calls would queue behind.
import { GatewayError } from "../contracts/respond.ts";

export class UpstreamSlots {
  readonly #inFlight = new Map<string, number>();

  constructor(readonly perUser: number) {}

  /** Takes one of `user`'s slots on the tool server at `upstream`, or refuses with 429; returns the release (safe twice). */
  take(user: string, upstream: string): () => void {
    const key = `${user}\n${upstream}`;
    const running = this.#inFlight.get(key) ?? 0;
    if (running >= this.perUser) {
      throw new GatewayError("too_many_running", `At most ${this.perUser} of your requests may run on this tool at once; wait for one to finish`, {
        "retry-after": "1",
      });
    }
    this.#inFlight.set(key, running + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = this.#inFlight.get(key)! - 1;
      if (left > 0) this.#inFlight.set(key, left);
      else this.#inFlight.delete(key);
    };
  }
}
