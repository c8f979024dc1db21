// One background run of an async tool: its status machine (MCP 2025-11-25 tasks,
// "Task Status Lifecycle"), its abort signal, and its outcome. Jobs and tasks are both
// runs; they differ only in how they are addressed and reported (four pure views, ./views.ts).
// A 2026 task's pending questions and a protocol-level failure are fields of the run too.
import type { CapabilityMap } from "../mcp/stateless/errors.ts";
import { ErrorCode } from "../util/errors.ts";
import { TaskInputs } from "../mcp/stateless/task-inputs.ts";
import type { CallToolResult } from "../mcp/tool-result.ts";

export type RunStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/**
 * How the caller asked: an older client's job, or a task in the seed form, the MCP 2025-11-25
 * form or the 2026-07-28 tasks extension's ("stateless": no session, questions wait in the run).
 */
export type RunKind = { kind: "job" } | { kind: "task"; form: "seed" | "mcp" | "stateless" };

/** What a finished handler left behind. `value` is what the tool returned, for job polls. */
export interface Settled {
  result: CallToolResult;
  value: unknown;
  /** The handler failed at the protocol level (threw an error with a JSON-RPC code): the server's failure, not the tool's. */
  protocolError?: ProtocolError;
}

export interface RunInit {
  id: string;
  seq: number;
  how: RunKind;
  sessionId: string | null;
  toolName: string;
  now: number;
  ttlMs: number;
  pollIntervalMs: number;
  /** The clock of later changes (a question asked or answered); Date.now by default. */
  clock?: () => number;
  /** A stateless task's client capabilities: what its questions may ask for. */
  clientCapabilities?: CapabilityMap;
  /** Called after every change worth keeping (status, outcome, handle): the state directory follows. */
  onChange?: (run: AsyncRun) => void;
  /** A finished run read back from the state directory. */
  restored?: RestoredState;
}

/** What a run read back from disk already knows; its status is always terminal. */
export interface RestoredState {
  status: RunStatus;
  updatedAt: number;
  finishedAt: number;
  settled: Settled | null;
  handle: Record<string, unknown> | null;
  protocolError: ProtocolError | null;
}

/** A failure of the server rather than the tool (2026 tasks report it as a failed task). */
export interface ProtocolError {
  code: number;
  message: string;
  data?: unknown;
}

/** What a run that a restart cut off reads as. */
export const CUT_OFF_MESSAGE = "The tool server restarted while this run was in progress, so its work was lost; start it again";

/** The outcome of a run cut off by a stop or a crash, as the tool's error and as a protocol error (2026 tasks). */
export function cutOffOutcome(): { settled: Settled; protocolError: ProtocolError } {
  return {
    settled: { result: { content: [{ type: "text", text: CUT_OFF_MESSAGE }], isError: true }, value: null },
    protocolError: { code: ErrorCode.InternalError, message: CUT_OFF_MESSAGE },
  };
}

const TERMINAL: ReadonlySet<RunStatus> = new Set(["completed", "failed", "cancelled"]);

export const STATUS_MESSAGES: Record<RunStatus, string> = {
  working: "The operation is in progress.",
  input_required: "The operation is waiting for input from the client.",
  completed: "The operation completed.",
  failed: "The operation failed.",
  cancelled: "The task was cancelled by request.",
};

export class AsyncRun {
  readonly id: string;
  /** Creation order, for stable listing and cursors. */
  readonly seq: number;
  readonly how: RunKind;
  readonly sessionId: string | null;
  readonly toolName: string;
  readonly createdAt: number;
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  #status: RunStatus = "working";
  #updatedAt: number;
  #finishedAt: number | null = null;
  #settled: Settled | null = null;
  /** True while the handler has not returned, even after a cancel it ignores. */
  #running = true;
  #handle: Record<string, unknown> | null = null;
  #protocolError: ProtocolError | null = null;
  /** A stateless task's questions waiting on the client (tasks/get lists them, tasks/update answers); null for other runs. */
  readonly inputs: TaskInputs | null;
  /** Read back from the state directory: its session is gone, so any session holding the id may read it. */
  readonly restored: boolean;
  readonly #onChange: ((run: AsyncRun) => void) | undefined;
  readonly #controller = new AbortController();
  readonly #terminal: Promise<void>;
  #onTerminal!: () => void;

  constructor(init: RunInit) {
    this.id = init.id;
    this.seq = init.seq;
    this.how = init.how;
    this.sessionId = init.sessionId;
    this.toolName = init.toolName;
    this.createdAt = init.now;
    this.#updatedAt = init.now;
    this.ttlMs = init.ttlMs;
    this.pollIntervalMs = init.pollIntervalMs;
    this.#terminal = new Promise((resolve) => (this.#onTerminal = resolve));
    this.#onChange = init.onChange;
    const clock = init.clock ?? Date.now;
    const stateless = init.how.kind === "task" && init.how.form === "stateless";
    this.inputs = stateless ? new TaskInputs(init.clientCapabilities ?? {}, () => this.setInputRequired(this.inputs!.waiting, clock())) : null;
    const back = init.restored;
    this.restored = back !== undefined;
    if (back) {
      this.#status = back.status;
      this.#updatedAt = back.updatedAt;
      this.#finishedAt = back.finishedAt;
      this.#settled = back.settled;
      this.#handle = back.handle;
      this.#protocolError = back.protocolError;
      this.#running = false;
      this.inputs?.close(new Error("The task ended"));
      this.#onTerminal();
    }
  }

  get status(): RunStatus {
    return this.#status;
  }
  get updatedAt(): number {
    return this.#updatedAt;
  }
  get finishedAt(): number | null {
    return this.#finishedAt;
  }
  get settled(): Settled | null {
    return this.#settled;
  }
  /** A failure of the server rather than the tool (the 2026 view reports it as a failed task). */
  get protocolError(): ProtocolError | null {
    return this.#protocolError;
  }
  /** The durable handle the tool attached (ctx.setTaskMetadata), published in the task's `_meta`. */
  get handle(): Record<string, unknown> | null {
    return this.#handle;
  }
  get running(): boolean {
    return this.#running;
  }
  get signal(): AbortSignal {
    return this.#controller.signal;
  }
  get terminal(): boolean {
    return TERMINAL.has(this.#status);
  }
  /** Resolves once the run reaches a terminal status. */
  whenTerminal(): Promise<void> {
    return this.#terminal;
  }

  /** A finished record may be dropped `ttlMs` after it finished; a live one never expires. */
  expired(now: number): boolean {
    return this.#finishedAt !== null && now >= this.#finishedAt + this.ttlMs;
  }

  /** The handler waits on the client (elicitation) or stopped waiting. Ignored once terminal. */
  setInputRequired(waiting: boolean, now: number): void {
    if (this.terminal) return;
    const next: RunStatus = waiting ? "input_required" : "working";
    if (next === this.#status) return;
    this.#status = next;
    this.#updatedAt = now;
    this.#onChange?.(this);
  }

  /** Merges `entries` into the handle; false once the run has ended (a late handle names nothing live). */
  setHandle(entries: Record<string, unknown>, now: number): boolean {
    if (this.terminal) return false;
    this.#handle = { ...this.#handle, ...entries };
    this.#updatedAt = now;
    this.#onChange?.(this);
    return true;
  }

  /** The handler returned. A run already cancelled stays cancelled (MCP "Task Cancellation" 3). */
  handlerSettled(settled: Settled, now: number): void {
    this.#running = false;
    if (this.terminal) return;
    const { protocolError, ...kept } = settled;
    this.#settled = kept;
    if (protocolError) this.#protocolError = protocolError;
    this.#end(settled.result.isError ? "failed" : "completed", now);
  }

  /** Requests cooperative cancellation; false when the run had already ended. */
  cancel(now: number): boolean {
    if (this.terminal) return false;
    this.#end("cancelled", now);
    this.#controller.abort(new Error("The task was cancelled"));
    return true;
  }

  /** The server stops with the run still going (close with a state directory): it reads as cut off, never as cancelled by request. */
  cutOff(now: number): boolean {
    if (this.terminal) return false;
    const outcome = cutOffOutcome();
    this.#settled = outcome.settled;
    this.#protocolError ??= outcome.protocolError;
    this.#end("failed", now);
    this.#controller.abort(new Error(CUT_OFF_MESSAGE));
    return true;
  }

  #end(status: RunStatus, now: number): void {
    this.#status = status;
    this.#updatedAt = now;
    this.#finishedAt = now;
    this.#onChange?.(this);
    // Questions still waiting are refused to the handler: nobody will answer them now.
    this.inputs?.close(new Error(status === "cancelled" ? "The task was cancelled" : "The task ended"));
    this.#onTerminal();
  }
}
