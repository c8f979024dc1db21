// A tool's answer to a call relayed from /mcp, read back into what lib/mcp's dispatcher wants
// of a method: its result, or its error thrown (NO_ANSWER when the tool cancelled the call).
// On the way, the tool's progress, logging and questions go to the request's exchange (the
// sink), waiting while the client lags so the tool's stream is paused, not buffered here.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Exchange } from "../../mcp/exchange.ts";
import { NO_ANSWER, type Result } from "../../mcp/methods/types.ts";
import { rawAnswer } from "../../mcp/raw-answer.ts";
import { TOOL_REFS } from "../../mcp/tool-result.ts";
import { isRecord } from "../../util/guards.ts";
import { ErrorCode, JsonRpcError, type JsonRpcMessage } from "../../util/jsonrpc.ts";
import { GatewayError } from "../contracts/respond.ts";
import { type AnswerBudget, type Charge, rewriteCost } from "../relay/answer-budget.ts";
import { isEventStream } from "../relay/forward.ts";
import { readMessages } from "../relay/upstream-mcp.ts";

/** Where a relayed call's messages go before its answer: the request's exchange (./door.ts). */
export interface Sink extends Pick<Exchange, "send" | "drained"> {
  readonly res: ServerResponse;
  /** Whether the answer may go through as the tool's bytes (rawAnswer), unread. */
  readonly raw: boolean;
  /** The tool's answer streams: so does the client's, from now. */
  stream(): void;
  /** Runs `fn` when the client leaves before its answer; the function returned stops that. */
  onGone(fn: () => void): () => void;
  /** Resolves once the answer has left the process (or the client is gone): a rewritten answer's charge stands until then. */
  sent(): Promise<void>;
}

/** A relayed call's answer, as a lib/mcp method answers: its result (NO_ANSWER when the tool cancelled it), and its size. */
export interface Relayed {
  result: Result;
  bytes(): number;
}

const MAX_ANSWER_BYTES = 64 * 1024 * 1024;
/** Keys whose presence in an answer may call for a change on the way out (./messages.ts, federation/references.ts). */
const NEEDS_REWRITE = ['"uri"', '"taskId"', '"method"', `"${TOOL_REFS}"`, '"job_id"'];

/** A tool's answer that is no JSON-RPC response (a broken body, a stream ended early). */
function gaveNoAnswer(): GatewayError {
  return new GatewayError("upstream_refused", "The tool gave no answer to this call");
}

/** The result of a tool's response, renamed; its error, passed on as the tool answered it. */
function resultOf(message: unknown): Result {
  if (isRecord(message) && message.jsonrpc === "2.0") {
    if (isRecord(message.error)) throw JsonRpcError.from(message.error);
    if (isRecord(message.result)) return message.result;
  }
  throw gaveNoAnswer();
}

/**
 * The tool's `answer`, read: its result for lib/mcp's dispatcher, its interim messages
 * (renamed by `expose`) on to `sink`. `abandon` ends the call at the tool when it asks the
 * client something the sink can not carry.
 */
export async function readAnswer(
  budget: AnswerBudget,
  answer: IncomingMessage,
  sink: Sink,
  expose: (message: unknown) => unknown,
  abandon: () => void,
): Promise<Relayed> {
  const status = answer.statusCode ?? 502;
  // The tool cancelled the call (the client asked it to): nothing is owed, as a tool server owes nothing then.
  if (status === 202) {
    answer.resume();
    return { result: NO_ANSWER, bytes: () => 0 };
  }
  if (status !== 200 || !isEventStream(answer)) {
    // Read whole, as it may need renaming: within the gateway's budget for such answers (503 beyond
    // it), held until the answer has left.
    return new Promise((resolve, reject) => {
      budget
        .rewrite(answer, MAX_ANSWER_BYTES, (raw, charge) => {
          resolve(wholeAnswer(status, raw, sink, charge, expose));
          return sink.sent();
        })
        .catch(reject);
    });
  }
  sink.stream();
  const stop = sink.onGone(() => answer.destroy());
  let final: unknown;
  let asked: string | undefined;
  try {
    await readMessages(answer, (m) => {
      const message = expose(m);
      if (isRecord(message) && typeof message.method !== "string") {
        final = message;
        return undefined;
      }
      if (sink.send(message as JsonRpcMessage)) return sink.drained?.();
      // Nothing carries the tool's question (a batch's answer is one JSON array): the call ends here.
      if (isRecord(message) && "id" in message) {
        asked = String(message.method).slice(0, 64);
        answer.destroy();
      }
      return undefined;
    });
  } catch {
    // The tool's stream broke off, or the client left: no answer came.
  } finally {
    stop();
  }
  if (asked !== undefined) {
    abandon();
    throw new JsonRpcError(ErrorCode.InvalidRequest, `The tool asked the client (${asked}), which an answer in a batch can not carry: send this call alone`);
  }
  return { result: resultOf(final), bytes: () => Buffer.byteLength(JSON.stringify(final) ?? "") };
}

/** An answer read whole: the tool's bytes as they are when nothing in them needs renaming. */
function wholeAnswer(status: number, raw: Buffer, sink: Sink, charge: Charge, expose: (message: unknown) => unknown): Relayed {
  const bytes = (): number => raw.length;
  if (status === 200 && sink.raw && !NEEDS_REWRITE.some((key) => raw.includes(key))) {
    // Nothing in it names a URI, a task, a method or a tool: the tool's bytes go through as they are.
    return { result: rawAnswer(raw), bytes };
  }
  charge(rewriteCost(raw));
  let value: unknown;
  try {
    value = JSON.parse(raw.toString("utf8"));
  } catch {
    throw gaveNoAnswer();
  }
  return { result: resultOf(expose(value)), bytes };
}
