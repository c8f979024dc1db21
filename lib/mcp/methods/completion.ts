// `completion/complete` (MCP 2025-11-25 server/utilities/completion): argument
// suggestions from the completers registered on prompts and resource templates.
import type { ServerCore } from "../core.ts";
import { JsonRpcError, invalidParams, quoteName } from "../errors.ts";
import { isRecord, setOwn } from "../../util/guards.ts";
import { ErrorCode, isJsonRpcError } from "../../util/jsonrpc.ts";
import type { Completer } from "../../registry/common.ts";
import { logHandlerFailure } from "../../util/logger.ts";
import type { MethodTable } from "./types.ts";

/** The spec caps one answer at 100 values. */
const MAX_VALUES = 100;

function completerFor(core: ServerCore, ref: Record<string, unknown>, argument: string): Completer | undefined {
  if (ref.type === "ref/prompt") {
    if (typeof ref.name !== "string") throw invalidParams("Invalid params: ref.name must be a string");
    const prompt = core.prompts.get(ref.name);
    if (!prompt) throw invalidParams(`Unknown prompt: ${quoteName(ref.name)}`);
    return prompt.completers.get(argument);
  }
  if (ref.type === "ref/resource") {
    if (typeof ref.uri !== "string") throw invalidParams("Invalid params: ref.uri must be a string");
    const template = core.templates.get(ref.uri);
    if (template) return template.completers.get(argument);
    if (core.resources.has(ref.uri)) return undefined;
    throw new JsonRpcError(ErrorCode.ResourceNotFound, "Resource not found", { uri: ref.uri.slice(0, 2048) });
  }
  throw invalidParams('Invalid params: ref.type must be "ref/prompt" or "ref/resource"');
}

/** Names the completer that failed by what registered it (both are known registered names by now). */
function completerName(ref: Record<string, unknown>, argument: string): string {
  return ref.type === "ref/prompt" ? `prompt ${String(ref.name)}, argument ${argument}` : `template ${String(ref.uri)}, argument ${argument}`;
}

function contextArguments(params: Record<string, unknown>): Record<string, string> {
  const args = isRecord(params.context) ? params.context.arguments : undefined;
  const out: Record<string, string> = {};
  if (isRecord(args)) for (const [k, v] of Object.entries(args)) if (typeof v === "string") setOwn(out, k, v);
  return out;
}

export const completionMethods = {
  async "completion/complete"(params, { core }) {
    const ref = params.ref;
    const argument = params.argument;
    if (!isRecord(ref)) throw invalidParams("Invalid params: ref must be an object");
    if (!isRecord(argument) || typeof argument.name !== "string" || typeof argument.value !== "string") {
      throw invalidParams("Invalid params: argument must be {name, value} strings");
    }
    const completer = completerFor(core, ref, argument.name);
    if (!completer) return { completion: { values: [], hasMore: false } };
    let suggested: readonly string[];
    try {
      suggested = await completer(argument.value, { arguments: contextArguments(params) });
    } catch (err) {
      if (isJsonRpcError(err)) throw err;
      logHandlerFailure(core.logger, "completion", completerName(ref, argument.name), err);
      throw new JsonRpcError(ErrorCode.InternalError, "Completion failed");
    }
    const all = Array.isArray(suggested) ? suggested.filter((v): v is string => typeof v === "string") : [];
    return { completion: { values: all.slice(0, MAX_VALUES), total: all.length, hasMore: all.length > MAX_VALUES } };
  },
} satisfies MethodTable;
