// The MCP Apps host (io.modelcontextprotocol/ui, 2026-01-26). An app
// runs in console/frame.html: a sandboxed document (opaque origin: no access to this page,
// its cookies or the server) served with a policy built from the domains its resource
// declares. The frame's loader writes the app's HTML into itself; from then on the page and
// the app speak JSON-RPC over postMessage: ui/initialize, then tool input and result
// notifications, the app's own tools/call and resources/read (proxied to the server, checked
// against the tool's visibility), size changes and teardown.
import { el } from "./dom.js";

/** @typedef {import("./rpc.js").Client} Client */
/** @typedef {import("./rpc.js").Wire} Wire */
/**
 * One app frame and where its conversation with the page stands.
 * @typedef {object} AppFrame
 * @property {HTMLIFrameElement} frame
 * @property {HTMLElement} wrap
 * @property {string} html
 * @property {Record<string, string[]>} csp
 * @property {Wire} tool
 * @property {unknown} input
 * @property {number | null} requestId
 * @property {((params: Wire) => void) | null} onLog
 * @property {boolean} initialized
 * @property {object | null} outcome
 * @property {boolean} outcomeSent
 * @property {Map<unknown, () => void>} pending
 * @property {Promise<void> | null} tearing
 */
/**
 * @typedef {object} AppViewOptions
 * @property {Wire} [tool]
 * @property {unknown} [input]
 * @property {number | null} [requestId]
 * @property {Wire} [meta]
 * @property {(params: Wire) => void} [onLog]
 */
/** @typedef {{ node: HTMLElement, result(result: Wire): void, cancelled(reason: string): void, teardown(): Promise<void> }} AppHandle */
const APPS_PROTOCOL = "2026-01-26";
const APP_TEARDOWN_MS = 3000;
const CSP_KEYS = ["connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"];
// Set by the page once connected: the MCP client and the catalogue's tools by name.
/** @type {{ rpc: Client | null, tools: Map<string, Wire> }} */
export const appHost = { rpc: null, tools: new Map() };
/** @type {Map<HTMLIFrameElement, AppFrame>} */
const appFrames = new Map();
let appRequestIds = 0;

/** @param {number} code @param {string} message */
function appError(code, message) {
  return Object.assign(new Error(message), { code: code });
}

/** The domains a resource declares in _meta.ui.csp, as the frame URL carries them. @param {Wire} meta */
function appCsp(meta) {
  const declared = meta && meta.ui && meta.ui.csp;
  /** @type {Record<string, string[]>} */
  const csp = {};
  CSP_KEYS.forEach(function (k) { if (declared && Array.isArray(declared[k])) csp[k] = declared[k].filter(function (/** @type {unknown} */ d) { return typeof d === "string"; }); });
  return csp;
}

/**
 * Who may call a tool (MCP Apps visibility): "model", "app", or both when unsaid.
 * @param {Wire} tool
 * @returns {unknown[]}
 */
export function toolVisibility(tool) {
  const v = tool && tool._meta && tool._meta.ui && tool._meta.ui.visibility;
  return Array.isArray(v) ? v : ["model", "app"];
}

/** @param {MessageEventSource | null} source */
function hostOf(source) {
  for (const host of appFrames.values()) {
    // A frame dropped with its card (the lists reloaded) is forgotten.
    if (!host.frame.isConnected) appFrames.delete(host.frame);
    else if (host.frame.contentWindow === source) return host;
  }
  return null;
}

/** @param {AppFrame} host @param {object} message */
function postToApp(host, message) {
  if (host.frame.contentWindow) host.frame.contentWindow.postMessage(message, "*");
}

// The frame takes the height its app asks for (ui/notifications/size-changed), within bounds.
/** @param {HTMLIFrameElement} frame @param {unknown} height */
function fitFrame(frame, height) {
  if (typeof height === "number" && height > 0) frame.style.height = Math.min(Math.max(Math.ceil(height) + 4, 80), 900) + "px";
}

/** @param {AppFrame} host */
function initializeResult(host) {
  const dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  /** @type {Record<string, unknown>} */
  const context = {
    theme: dark ? "dark" : "light",
    displayMode: "inline",
    availableDisplayModes: ["inline"],
    containerDimensions: { maxHeight: 900, width: host.frame.clientWidth || 640 },
    locale: navigator.language || "en",
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    platform: "web",
    userAgent: "hubmcp-console",
  };
  if (host.tool) context.toolInfo = { tool: host.tool, id: host.requestId === null ? undefined : host.requestId };
  return {
    protocolVersion: APPS_PROTOCOL,
    hostInfo: { name: "hubmcp-console", title: "Tool console", version: "1.0.0" },
    hostCapabilities: { serverTools: {}, serverResources: {}, logging: {}, sandbox: { csp: host.csp } },
    hostContext: context,
  };
}

/**
 * An app's request to the host, answered from the console or proxied to the server.
 * @param {AppFrame} host
 * @param {string} method
 * @param {Wire} params
 * @returns {Promise<unknown>}
 */
async function appRequest(host, method, params) {
  if (method === "ui/initialize") return initializeResult(host);
  if (method === "ping") return {};
  if (method === "ui/request-display-mode") return { mode: "inline" };
  if (!host.initialized) throw appError(-32600, "Send ui/notifications/initialized first");
  if (!appHost.rpc) throw appError(-32603, "Not connected");
  if (method === "tools/call") {
    const tool = appHost.tools.get(params.name);
    if (!tool) throw appError(-32602, "Unknown tool: " + String(params.name));
    // A model-only tool is not for apps to call (MCP Apps "visibility").
    if (toolVisibility(tool).indexOf("app") === -1) throw appError(-32602, "Tool " + tool.name + " is not callable from an app");
    return appHost.rpc.request("tools/call", { name: tool.name, arguments: params.arguments || {} });
  }
  if (method === "resources/read") return appHost.rpc.request("resources/read", { uri: params.uri });
  if (method === "resources/list" || method === "resources/templates/list") return appHost.rpc.request(method, params.cursor ? { cursor: params.cursor } : {});
  throw appError(-32601, "Method not found: " + method);
}

/** @param {AppFrame} host @param {string} method @param {Wire} params */
function appNotification(host, method, params) {
  if (method === "ui/notifications/initialized") {
    if (host.initialized) return;
    host.initialized = true;
    if (host.input !== undefined) postToApp(host, { jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: host.input } });
    flushOutcome(host);
  } else if (method === "ui/notifications/size-changed") {
    fitFrame(host.frame, params.height);
  } else if (method === "notifications/message") {
    if (host.onLog) host.onLog(params);
  } else if (method === "ui/notifications/request-teardown") {
    teardownApp(host);
  }
}

/** @param {AppFrame} host */
function flushOutcome(host) {
  if (!host.initialized || !host.outcome || host.outcomeSent) return;
  host.outcomeSent = true;
  postToApp(host, host.outcome);
}

window.addEventListener("message", function (event) {
  const host = hostOf(event.source);
  /** @type {Wire} */
  const m = event.data;
  if (!host || !m || typeof m !== "object") return;
  if (m.type === "hubmcp-frame-ready") return postToApp(host, { type: "hubmcp-frame-render", html: host.html });
  if (m.type === "hubmcp-frame-rendered") return fitFrame(host.frame, m.height);
  if (m.jsonrpc !== "2.0") return;
  if (typeof m.method === "string" && m.id !== undefined && m.id !== null) {
    appRequest(host, m.method, m.params || {}).then(
      function (result) { postToApp(host, { jsonrpc: "2.0", id: m.id, result: result }); },
      function (err) { postToApp(host, { jsonrpc: "2.0", id: m.id, error: { code: typeof err.code === "number" ? err.code : -32603, message: String(err && err.message || err) } }); },
    );
  } else if (typeof m.method === "string") {
    appNotification(host, m.method, m.params || {});
  } else if (host.pending.has(m.id)) {
    /** @type {() => void} */ (host.pending.get(m.id))();
  }
});

/**
 * Asks the app to clean up (ui/resource-teardown), then removes its frame; bounded in time.
 * @param {AppFrame} host
 * @returns {Promise<void>}
 */
function teardownApp(host) {
  if (host.tearing) return host.tearing;
  host.tearing = new Promise(function (resolve) {
    const id = "teardown-" + (++appRequestIds);
    const done = function () {
      clearTimeout(timer);
      host.pending.delete(id);
      appFrames.delete(host.frame);
      host.wrap.remove();
      resolve();
    };
    const live = host.initialized && host.frame.isConnected;
    const timer = setTimeout(done, live ? APP_TEARDOWN_MS : 0);
    host.pending.set(id, done);
    if (live) postToApp(host, { jsonrpc: "2.0", id: id, method: "ui/resource-teardown", params: {} });
  });
  return host.tearing;
}

/**
 * A sandboxed frame showing an app. options: tool (the tool it belongs to), input (its
 * arguments), requestId, meta (the resource's _meta, for its CSP), onLog. Answers the
 * wrapper element and a handle: result(r), cancelled(reason), teardown().
 * @param {string} frameBase
 * @param {string} html
 * @param {AppViewOptions} [options]
 * @returns {AppHandle}
 */
export function appView(frameBase, html, options) {
  options = options || {};
  const csp = appCsp(options.meta);
  const query = Object.keys(csp).length ? "?csp=" + encodeURIComponent(JSON.stringify(csp)) : "";
  const frame = el("iframe", { class: "app", sandbox: "allow-scripts", title: "Tool app", src: frameBase + "frame.html" + query });
  const wrap = el("div", { class: "app-wrap" }, [frame]);
  /** @type {AppFrame} */
  const host = {
    frame: frame, wrap: wrap, html: html, csp: csp, tool: options.tool || null, input: options.input,
    requestId: options.requestId === undefined ? null : options.requestId, onLog: options.onLog || null,
    initialized: false, outcome: null, outcomeSent: false, pending: new Map(), tearing: null,
  };
  appFrames.set(frame, host);
  return {
    node: wrap,
    result: function (result) {
      host.outcome = { jsonrpc: "2.0", method: "ui/notifications/tool-result", params: result };
      flushOutcome(host);
    },
    cancelled: function (reason) {
      host.outcome = { jsonrpc: "2.0", method: "ui/notifications/tool-cancelled", params: { reason: reason } };
      flushOutcome(host);
    },
    teardown: function () { return teardownApp(host); },
  };
}
