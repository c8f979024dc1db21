// A Rappture tool as an MCP tool: its schema from tool.xml, a handler that checks the
// arguments, answers identical inputs from a bounded cache, runs the program and returns its
// outputs as data (structuredContent), a summary, images and the run's provenance in _meta.
import { createHash } from "node:crypto";
import type { ToolOptions } from "../registry/tools.ts";
import { currentValues, type Examples } from "./arguments.ts";
import { examplesOf } from "./examples.ts";
import { inputSchemaOf } from "./inputs.ts";
import { readOutputs } from "./outputs.ts";
import { plotAppPage, plotAppUri } from "./plot-app.ts";
import { runRappture } from "./run.ts";
import { traceEnv, type TraceContext } from "../util/trace-context.ts";
import { type RappturePublication, readToolXml } from "./tool-xml.ts";

export interface RapptureOptions {
  /** The tool's name (default: from tool.xml). */
  name?: string;
  description?: string;
  /** A run is ended after this long (default 1 hour). */
  timeoutMs?: number;
  /** Identical inputs answered from the last `cacheSize` runs (default 32; 0 turns the cache off). */
  cacheSize?: number;
  /** The program's environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Where each run's private folder is made (default: the system's temp folder). */
  workRoot?: string;
}

/** The part of a tool call's context a Rappture run uses. */
export interface RappturesContext {
  readonly signal: AbortSignal;
  reportProgress(progress: number, total?: number, message?: string): void;
  log(level: "info", data: unknown, logger?: string): void;
  /** The call's trace context: the run's TRACEPARENT/TRACESTATE continue it. */
  readonly trace?: TraceContext;
}

/** Lines of program output sent to the caller's log per run; the rest is counted. */
const LOG_LINES = 200;
export const RAPPTURE_META = "io.hubmcp/rappture";

interface Answer {
  content: Array<Record<string, unknown>>;
  isError: boolean;
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

function failure(text: string): Answer {
  return { content: [{ type: "text", text }], isError: true };
}

export function rapptureTool(
  file: string,
  options: RapptureOptions = {},
): {
  tool: RappturePublication;
  handler: (args: Record<string, unknown>, ctx: RappturesContext) => Promise<Answer>;
  options: ToolOptions;
  /** The MCP App that plots a run's curves, histograms and sequences. */
  app: { uri: string; page: string };
} {
  const tool = readToolXml(file);
  const name = options.name ?? tool.name;
  const loaders = examplesOf(tool.folder, tool.inputs);
  const examples = new Map<string, Examples>([...loaders].map(([k, v]) => [k, v.values]));
  const cacheSize = options.cacheSize ?? 32;
  const cache = new Map<string, Answer>();
  const handler = async (args: Record<string, unknown>, ctx: RappturesContext): Promise<Answer> => {
    const checked = currentValues(tool.inputs, args, examples);
    if (!checked.ok) return failure(checked.problem);
    const inputs = Object.fromEntries([...checked.current].sort(([a], [b]) => (a < b ? -1 : 1)));
    const key = createHash("sha256")
      .update(JSON.stringify([tool.version, tool.command, inputs]))
      .digest("hex");
    const hit = cache.get(key);
    if (hit) {
      cache.delete(key);
      cache.set(key, hit);
      return { ...hit, _meta: { [RAPPTURE_META]: { ...(hit._meta?.[RAPPTURE_META] as object), cached: true } } };
    }
    let lines = 0;
    const run = await runRappture(tool, checked.current, {
      signal: ctx.signal,
      timeoutMs: options.timeoutMs ?? 3_600_000,
      env: traceEnv(options.env ?? process.env, ctx.trace),
      workRoot: options.workRoot,
      onProgress: (percent, message) => ctx.reportProgress(percent, 100, message || undefined),
      onLog: (line) => {
        if (++lines <= LOG_LINES) ctx.log("info", line, name);
        else if (lines === LOG_LINES + 1) ctx.log("info", `(more output than ${LOG_LINES} lines: not sent)`, name);
      },
    });
    if (!run.ok) return failure(run.stderrTail ? `${run.problem}; its last error output:\n${run.stderrTail}` : run.problem);
    const out = readOutputs(run.run);
    const answer: Answer = {
      content: [
        { type: "text", text: out.summary.join("\n") || `${tool.title} finished` },
        ...out.images.map((i) => ({ type: "image", data: i.data, mimeType: i.mimeType })),
      ],
      isError: false,
      structuredContent: out.structured,
      _meta: { [RAPPTURE_META]: { tool: name, version: tool.version, inputs, elapsedMs: run.elapsedMs, runDigest: run.digest, cached: false } },
    };
    if (cacheSize > 0) {
      cache.set(key, answer);
      if (cache.size > cacheSize) cache.delete(cache.keys().next().value!);
    }
    return answer;
  };
  const loaderNames = new Map([...loaders].map(([k, v]) => [k, v.names]));
  const app = { uri: plotAppUri(name), page: plotAppPage };
  return {
    tool,
    handler,
    app,
    options: {
      name,
      title: tool.title,
      description: options.description ?? tool.description,
      inputSchema: inputSchemaOf(tool.inputs, loaderNames),
      context: true,
      // Units and ranges are checked with the schema, at call time: a refused value never becomes a job or a task.
      checkArguments: (args) => {
        const checked = currentValues(tool.inputs, args, examples);
        return checked.ok ? undefined : { path: `/${checked.input}`, message: checked.reason };
      },
      annotations: { title: tool.title, readOnlyHint: true, openWorldHint: false },
      _meta: { ui: { resourceUri: app.uri } },
    },
  };
}
