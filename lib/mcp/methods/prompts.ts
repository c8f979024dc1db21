import { Context, progressTokenOf } from "../context.ts";
import { MissingCapabilityError, RoundEndedError } from "../stateless/input-required.ts";
import { JsonRpcError, invalidParams, quoteName } from "../errors.ts";
import { isRecord, ownValue } from "../../util/guards.ts";
import { logHandlerFailure } from "../../util/logger.ts";
import { ErrorCode, isJsonRpcError } from "../../util/jsonrpc.ts";
import { paginate } from "./paginate.ts";
import type { MethodTable } from "./types.ts";

export const promptMethods = {
  "prompts/list": (params, { core }) =>
    paginate(
      Array.from(core.prompts.values(), (p) => p.entry),
      params,
      core.pageSize,
      "prompts",
    ),

  async "prompts/get"(params, call) {
    const { core } = call;
    const name = params.name;
    if (typeof name !== "string") throw invalidParams("Invalid params: name must be a string");
    const prompt = core.prompts.get(name);
    if (!prompt) throw invalidParams(`Unknown prompt: ${quoteName(name)}`);
    const args = params.arguments ?? {};
    if (!isRecord(args)) throw invalidParams("Invalid params: arguments must be an object");
    for (const arg of prompt.arguments) {
      if (arg.required && (ownValue(args, arg.name) ?? null) === null) {
        throw invalidParams(`Missing required argument: ${arg.name}`);
      }
    }
    try {
      // Only a stateless request's prompt may ask the user (as input_required rounds).
      const ctx = call.exchange.stateless?.ask ? new Context(call, progressTokenOf(params)) : undefined;
      return await prompt.render(args, ctx);
    } catch (err) {
      // A handler may answer "not found" or "invalid params" itself.
      if (isJsonRpcError(err) || err instanceof MissingCapabilityError || err instanceof RoundEndedError) throw err;
      logHandlerFailure(core.logger, "prompt", name, err);
      throw new JsonRpcError(ErrorCode.InternalError, "Prompt handler failed");
    }
  },
} satisfies MethodTable;
