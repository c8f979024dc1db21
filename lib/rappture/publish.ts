// A Rappture tool as an MCP tool: its schema from tool.xml, a handler that checks the
// arguments, answers identical inputs from a bounded cache, runs the program and returns its
// outputs as data (structuredContent), a summary, images and the run's provenance in _meta.
import { createHash } from "node:crypto";
import type { ToolOptions } from "../registry/tools.ts";
import { currentValues, type Examples } from "./arguments.ts";
import { examplesOf } from "./examples.ts";
import { inputSchemaOf } from "./inputs.ts";
import { outputSchemaOf } from "./output-schema.ts";
import { readOutputs } from "./outputs.ts";
import { plotAppPage, plotAppUri } from "./plot-app.ts";
import { runRappture } from "./run.ts";
import { RunFiles, runFileTemplate, runFileUri } from "./run-files.ts";
import type { ReadScope } from "../registry/resource-templates.ts";
import { isRecord } from "../util/guards.ts";
import { ErrorCode, JsonRpcError } from "../util/jsonrpc.ts";
import { traceEnv, type TraceContext } from "../util/trace-context.ts";
import { type RappturePublication, readToolXml } from "./tool-xml.ts";

export interface RapptureOptions {
  /** The tool's name (default: from tool.xml). */
  name?: string;
  description?: string;
  /** A run is ended after this long (default 1 hour). */
  timeoutMs?: number;
  /** Identical inputs answered from the last `cacheSize` runs (default 32; 0 turns the cache off; a caller opts out per call, see RappturesContext.meta). */
  cacheSize?: number;
  /** The program's environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Where each run's private folder is made (default: the system's temp folder). */
  workRoot?: string;
}

/** The part of a tool call's context a Rappture run uses. */
export interface RappturesContext {
  readonly signal: AbortSignal;
  /** The caller's MCP session: its run files are kept for it (./run-files.ts). */
  readonly sessionId: string | null;
  reportProgress(progress: number, total?: number, message?: string): void;
  log(level: "info", data: unknown, logger?: string): void;
  /** The call's trace context: the run's TRACEPARENT/TRACESTATE continue it. */
  readonly trace?: TraceContext;
  /** The request's `_meta`: `{"io.hubmcp/rappture": {"cache": false}}` runs again instead of answering from the cache. */
  readonly meta?: Readonly<Record<string, unknown>>;
}

/** A run file kept with its cached answer up to this size; a larger one is linked only from the run that made it. */
const CACHED_RUN_CHARS = 4 * 1024 * 1024;
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

/** Calls `ended` once when the session ends; false when there is no such session. */
export type WatchSession = (session: string, ended: () => void) => boolean;

export function rapptureTool(
  file: string,
  options: RapptureOptions = {},
  watchSession: WatchSession = () => false,
): {
  tool: RappturePublication;
  handler: (args: Record<string, unknown>, ctx: RappturesContext) => Promise<Answer>;
  options: ToolOptions;
  /** The MCP App that plots a run's curves, histograms and sequences. */
  app: { uri: string; page: string; options: { name: string; description: string } };
  /** Each run's run file, a resource for the session that ran it. */
  runFiles: {
    template: string;
    options: { name: string; description: string; mimeType: string };
    read: (vars: Record<string, string>, uri: string, scope: ReadScope) => string;
  };
} {
  const tool = readToolXml(file);
  const name = options.name ?? tool.name;
  const loaders = examplesOf(tool.folder, tool.inputs);
  const examples = new Map<string, Examples>([...loaders].map(([k, v]) => [k, v.values]));
  const cacheSize = options.cacheSize ?? 32;
  const cache = new Map<string, { answer: Answer; runXml: string | undefined }>();
  const runFiles = new RunFiles(watchSession);
  /** The answer with a link to its run file, kept for the caller's session (nothing kept outside one). */
  const linked = (answer: Answer, runXml: string | undefined, session: string | null): Answer => {
    const run = runXml === undefined ? undefined : runFiles.keep(session, runXml);
    if (run === undefined) return answer;
    const link = {
      type: "resource_link",
      uri: runFileUri(name, run),
      name: "run.xml",
      title: `${tool.title}: the run file`,
      description: "The whole run: every output in full (fields and meshes too), readable for this session",
      mimeType: "application/xml",
    };
    return { ...answer, content: [...answer.content, link] };
  };
  const handler = async (args: Record<string, unknown>, ctx: RappturesContext): Promise<Answer> => {
    const checked = currentValues(tool.inputs, args, examples);
    if (!checked.ok) return failure(checked.problem);
    const inputs = Object.fromEntries([...checked.current].sort(([a], [b]) => (a < b ? -1 : 1)));
    const key = createHash("sha256")
      .update(JSON.stringify([tool.version, tool.command, inputs]))
      .digest("hex");
    const asked = ctx.meta?.[RAPPTURE_META];
    const hit = isRecord(asked) && asked.cache === false ? undefined : cache.get(key);
    if (hit) {
      cache.delete(key);
      cache.set(key, hit);
      const answer = hit.answer;
      return linked({ ...answer, _meta: { [RAPPTURE_META]: { ...(answer._meta?.[RAPPTURE_META] as object), cached: true } } }, hit.runXml, ctx.sessionId);
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
      cache.set(key, { answer, runXml: run.runXml.length <= CACHED_RUN_CHARS ? run.runXml : undefined });
      if (cache.size > cacheSize) cache.delete(cache.keys().next().value!);
    }
    return linked(answer, run.runXml, ctx.sessionId);
  };
  const loaderNames = new Map([...loaders].map(([k, v]) => [k, v.names]));
  const app = {
    uri: plotAppUri(name),
    page: plotAppPage,
    options: { name: `${name}-plot`, description: `Plots the curves, histograms and sequences of a ${tool.title} run` },
  };
  return {
    tool,
    handler,
    app,
    runFiles: {
      template: runFileTemplate(name),
      options: { name: `${name}-run`, description: `The run file of a ${tool.title} run, for the session that ran it`, mimeType: "application/xml" },
      read: ({ run }, uri, scope) => {
        const xml = runFiles.read(scope.sessionId, run!);
        if (xml === undefined) throw new JsonRpcError(ErrorCode.ResourceNotFound, "Resource not found", { uri: uri.slice(0, 2048) });
        return xml;
      },
    },
    options: {
      name,
      title: tool.title,
      description: options.description ?? tool.description,
      inputSchema: inputSchemaOf(tool.inputs, loaderNames),
      outputSchema: outputSchemaOf(tool.run),
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
