// The standard OpenTelemetry environment variables, read once: where spans go, what they are
// labelled with, which are kept. Unusable values are ignored (the SDK's rule), never echoed.
import type { ParentContext } from "../util/trace-context.ts";

/** Decides a new span's sampled flag; `parent` is what the request named, if anything. */
export type Sampler = (parent: ParentContext | null, traceId: string) => boolean;

export interface TracingConfig {
  /** The OTLP/HTTP traces URL (`…/v1/traces`); null when nothing is exported. */
  endpoint: URL | null;
  headers: Record<string, string>;
  resource: Record<string, string>;
  sampler: Sampler;
}

const RATIO_SCALE = 2 ** 52;

/** The OpenTelemetry TraceIdRatioBased rule, on the trace id's last 13 hex digits (52 bits). */
function ratio(r: number): Sampler {
  if (!(r > 0)) return () => false;
  if (r >= 1) return () => true;
  return (_p, traceId) => Number.parseInt(traceId.slice(-13), 16) / RATIO_SCALE < r;
}

function parentBased(root: Sampler): Sampler {
  return (parent, traceId) => (parent ? parent.sampled : root(parent, traceId));
}

function samplerOf(name: string | undefined, arg: string | undefined): Sampler {
  const n = arg === undefined || arg.trim() === "" ? 1 : Number(arg);
  const r = Number.isFinite(n) && n >= 0 && n <= 1 ? n : 1;
  switch ((name ?? "").trim().toLowerCase()) {
    case "always_on":
      return () => true;
    case "always_off":
      return () => false;
    case "traceidratio":
      return ratio(r);
    case "parentbased_always_off":
      return parentBased(() => false);
    case "parentbased_traceidratio":
      return parentBased(ratio(r));
    default:
      // parentbased_always_on is the specification's default, and what an unknown name falls back to.
      return parentBased(() => true);
  }
}

/** `k=v,k2=v2` with percent-encoded values (W3C Baggage octets); malformed entries are skipped. */
export function keyValues(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of (text ?? "").split(",")) {
    const at = entry.indexOf("=");
    if (at <= 0) continue;
    const key = entry.slice(0, at).trim();
    let value: string;
    try {
      value = decodeURIComponent(entry.slice(at + 1).trim());
    } catch {
      continue;
    }
    if (key !== "" && !/[\r\n]/.test(key + value)) out[key] = value;
  }
  return out;
}

function endpointOf(env: NodeJS.ProcessEnv): URL | null {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const text = traces || (base ? `${base.replace(/\/+$/, "")}/v1/traces` : "");
  if (!text || !URL.canParse(text)) return null;
  const url = new URL(text);
  return url.protocol === "http:" || url.protocol === "https:" ? url : null;
}

/** The tracing settings `env` gives; `service` names this program when OTEL_SERVICE_NAME does not. */
export function tracingConfig(env: NodeJS.ProcessEnv, service: string): TracingConfig {
  const off = /^true$/i.test(env.OTEL_SDK_DISABLED?.trim() ?? "") || /^none$/i.test(env.OTEL_TRACES_EXPORTER?.trim() ?? "");
  const resource = { "service.name": service, ...keyValues(env.OTEL_RESOURCE_ATTRIBUTES) };
  const name = env.OTEL_SERVICE_NAME?.trim();
  if (name) resource["service.name"] = name;
  return {
    endpoint: off ? null : endpointOf(env),
    headers: { ...keyValues(env.OTEL_EXPORTER_OTLP_HEADERS), ...keyValues(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS) },
    resource,
    sampler: samplerOf(env.OTEL_TRACES_SAMPLER, env.OTEL_TRACES_SAMPLER_ARG),
  };
}
