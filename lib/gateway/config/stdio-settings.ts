// A `stdio` revision (`{"stdio": ["python", "server.py"]}`): the command of a stdio MCP server
// that each tool session runs under `start_mcp --stdio-server`. Parsed from gateway.json
// with each problem one line naming the key (never the value), and its program checked at
// start as an `app` file is: a path that is missing, not a file, or writable by every
// account (any of them could change what the tool's account runs) stops the gateway.
import { stat } from "node:fs/promises";
import { dirname, isAbsolute, resolve } from "node:path";
import { s, problem, type Fail } from "../../schema/index.ts";

/** A `stdio` revision's value as written in gateway.json: the program and its arguments. */
export const stdioSchema = problem(
  s.array(s.string({ pattern: "^[^\\u0000]+$" }), { minItems: 1 }),
  'must be a non-empty array of strings: the server\'s program and its arguments (["python", "server.py"])',
);

/** The checked command; a program named by a path (it has a `/`) is resolved against the config's folder. */
export function parseStdio(v: readonly string[], baseDir: string): string[] {
  const [program, ...args] = v;
  return [program!.includes("/") && !isAbsolute(program!) ? resolve(baseDir, program!) : program!, ...args];
}

/** A program named by a path exists, is a file, and neither it nor its folder is writable by every account. */
export async function checkStdioProgram(key: string, command: readonly string[], fail: Fail, owners?: readonly number[]): Promise<void> {
  const program = command[0]!;
  if (!program.includes("/")) return;
  const found = await stat(program).catch(() => undefined);
  if (!found?.isFile()) fail(key, `names the program ${program}, which ${found ? "is not a file" : "does not exist"}`);
  const parent = await stat(dirname(program));
  if (((found.mode | parent.mode) & 0o002) !== 0) fail(key, `names the program ${program}, which or whose folder every account may write`);
  // A registered tool's program (./gateway-config.ts checkToolFiles): as for its files, no other account may own or change it.
  if (owners && (!owners.includes(found.uid) || !owners.includes(parent.uid) || ((found.mode | parent.mode) & 0o020) !== 0))
    fail(key, `names the program ${program}, which or whose folder another account owns or its group may write`);
}
