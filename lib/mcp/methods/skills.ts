// skills/list and skills/get of the Skills extension (SEP-2640): the registered skills'
// entries, paginated like every list, and one entry by the URI of its SKILL.md. Plugged in
// by the first `server.skill()`, so a server without skills neither has nor advertises them.
import type { ServerCore } from "../core.ts";
import { invalidParams, JsonRpcError } from "../errors.ts";
import { ErrorCode } from "../../util/jsonrpc.ts";
import { paginate } from "./paginate.ts";
import type { MethodTable } from "./types.ts";

export function skillMethods(): MethodTable {
  return {
    "skills/list": (params, { core }) =>
      paginate(
        Array.from(skillsOf(core).values(), (s) => s.entry),
        params,
        core.pageSize,
        "skills",
      ),
    "skills/get"(params, { core }) {
      const uri = params.uri;
      if (typeof uri !== "string") throw invalidParams("Invalid params: uri must be a string");
      const skill = skillsOf(core).get(uri);
      // The SEP asks for -32602 here, the code resources/read uses for unknown resources.
      if (!skill) throw new JsonRpcError(ErrorCode.InvalidParams, "Invalid params: no skill with this SKILL.md URI", { uri: uri.slice(0, 2048) });
      return { skill: skill.entry };
    },
  };
}

function skillsOf(core: ServerCore): NonNullable<ServerCore["skills"]> {
  return core.skills ?? new Map();
}
