// The short-lived process that compiles a TypeScript app for start_mcp (see ts-cache.ts):
// argv[2] is the file URL of the `typescript` package, argv[3] a BuildRequest as JSON.
// Prints the BuildResult as JSON on stdout and exits; the compiler's memory goes with it.
// It also exits when its parent does, so a start_mcp stopped mid-compile leaves nothing.
import type TS from "typescript";
import { buildApp, type BuildRequest, type BuildResult } from "./ts-build.ts";

async function run(typescriptUrl: string, requestJson: string): Promise<BuildResult> {
  const loaded = (await import(typescriptUrl)) as { default?: typeof TS } & typeof TS;
  return buildApp(loaded.default ?? loaded, JSON.parse(requestJson) as BuildRequest);
}

const [typescriptUrl, requestJson] = process.argv.slice(2);
if (typescriptUrl && requestJson) {
  // stdin is a pipe from start_mcp: when start_mcp goes (even killed), so does this compile.
  process.stdin.on("end", () => process.exit(1)).resume();
  const finish = (result: BuildResult, code: number): void => void process.stdout.write(JSON.stringify(result), () => process.exit(code));
  run(typescriptUrl, requestJson).then(
    (result) => finish(result, 0),
    (err: unknown) => finish({ ok: false, errors: [err instanceof Error ? err.message : String(err)] }, 1),
  );
}
