// Each run's run file, kept as a resource for the MCP session that ran it: readable by that
// session alone (another session reading its URI finds nothing, as for a URI that never
// existed), bounded per session and in all (the oldest go first), and dropped when the
// session ends. A run outside any session (a stateless request) keeps nothing: nobody
// could read it privately.
import { randomBytes } from "node:crypto";

/** Run files a session keeps; the oldest is dropped for the next. */
export const MAX_RUNS_PER_SESSION = 16;
/** Characters of run files a session keeps. */
export const MAX_SESSION_CHARS = 64 * 1024 * 1024;
/** Characters of run files kept across all sessions of one tool. */
export const MAX_TOTAL_CHARS = 256 * 1024 * 1024;

export function runFileTemplate(tool: string): string {
  return `rappture://${tool}/runs/{run}/run.xml`;
}

export function runFileUri(tool: string, run: string): string {
  return `rappture://${tool}/runs/${run}/run.xml`;
}

interface Kept {
  session: string;
  xml: string;
}

export interface RunFilesOptions {
  maxRunsPerSession?: number;
  maxSessionChars?: number;
  maxTotalChars?: number;
}

export class RunFiles {
  /** Run id → its file, oldest first. */
  readonly #runs = new Map<string, Kept>();
  /** Session → its run ids, oldest first, and the characters they hold. */
  readonly #sessions = new Map<string, { runs: string[]; chars: number }>();
  #chars = 0;
  readonly #limits: Required<RunFilesOptions>;
  /** Calls `ended` once when the session ends; false when there is no such session. */
  readonly #watch: (session: string, ended: () => void) => boolean;

  constructor(watch: (session: string, ended: () => void) => boolean, options: RunFilesOptions = {}) {
    this.#watch = watch;
    this.#limits = {
      maxRunsPerSession: options.maxRunsPerSession ?? MAX_RUNS_PER_SESSION,
      maxSessionChars: options.maxSessionChars ?? MAX_SESSION_CHARS,
      maxTotalChars: options.maxTotalChars ?? MAX_TOTAL_CHARS,
    };
  }

  /** Keeps `xml` for `session`; its run id, or undefined when nothing is kept (no session, too large). */
  keep(session: string | null, xml: string): string | undefined {
    if (session === null || xml.length > this.#limits.maxSessionChars || xml.length > this.#limits.maxTotalChars) return undefined;
    let mine = this.#sessions.get(session);
    if (!mine) {
      if (!this.#watch(session, () => this.#dropSession(session))) return undefined;
      mine = { runs: [], chars: 0 };
      this.#sessions.set(session, mine);
    }
    while (mine.runs.length >= this.#limits.maxRunsPerSession || mine.chars + xml.length > this.#limits.maxSessionChars) this.#drop(mine.runs[0]!);
    while (this.#chars + xml.length > this.#limits.maxTotalChars) this.#drop(this.#runs.keys().next().value!);
    const id = randomBytes(16).toString("base64url");
    this.#runs.set(id, { session, xml });
    mine.runs.push(id);
    mine.chars += xml.length;
    this.#chars += xml.length;
    return id;
  }

  /** The run file, when `session` is the one that ran it and it is still kept. */
  read(session: string | null, run: string): string | undefined {
    const kept = this.#runs.get(run);
    return kept && session !== null && kept.session === session ? kept.xml : undefined;
  }

  /** Characters kept in all, for specs of the bounds. */
  get chars(): number {
    return this.#chars;
  }

  #drop(run: string): void {
    const kept = this.#runs.get(run)!;
    this.#runs.delete(run);
    this.#chars -= kept.xml.length;
    const mine = this.#sessions.get(kept.session)!;
    mine.runs.splice(mine.runs.indexOf(run), 1);
    mine.chars -= kept.xml.length;
  }

  #dropSession(session: string): void {
    const mine = this.#sessions.get(session);
    if (!mine) return;
    for (const run of [...mine.runs]) this.#drop(run);
    this.#sessions.delete(session);
  }
}
