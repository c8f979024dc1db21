// The page's entry: start-up, the catalogue (tools, resources, templates, prompts) and the
// wiring between forms, calls and the MCP client.
import { appHost, appView, toolVisibility } from "./apps.js";
import { callFor, cancelCall, elicitationForm, finishCall, followJob, followTask, JOB_TOOL, jobHandle, logLine, onProgress, setStatus, startCall } from "./calls.js";
import { el } from "./dom.js";
import { fieldModel, formModel } from "./form-model.js";
import { buildFields, contentBlock, readForm, resourceView, resultView } from "./render.js";
import { createClient } from "./rpc.js";

/** @typedef {import("./calls.js").Call} Call */
/** @typedef {import("./calls.js").Ask} Ask */
/** @typedef {import("./rpc.js").Client} Client */
/** @typedef {import("./dom.js").Child} Child */
/** @typedef {import("./form-model.js").Field} Field */
/** @typedef {import("./rpc.js").Wire} Wire */
const scriptUrl = document.currentScript instanceof HTMLScriptElement ? document.currentScript.src : location.href;
// Relative to where this script was served, so a path prefix or a proxy in front needs no setup.
const base = new URL("../", scriptUrl).href;
const frameBase = new URL("console/", base).href;
/** An element of the page (page.ts has every id asked for). @param {string} id */
const $ = function (id) { return /** @type {HTMLElement} */ (document.getElementById(id)); };
/** The log level picker. @type {() => HTMLSelectElement} */
const levelPicker = function () { return /** @type {HTMLSelectElement} */ ($("log-level")); };
/** Questions that belong to no run. @type {Ask[]} */
const globalAsks = [];
/** @type {Client | null} */
let client = null;
/** @type {Wire} */
let capabilities = {};
/** The client, set by boot() before any form exists (every caller runs later). */
function connected() { return /** @type {Client} */ (client); }

/** @param {string} kind @param {unknown} name */
function cardId(kind, name) { return kind + "-" + String(name).replace(/[^A-Za-z0-9_-]/g, "_"); }

/** @param {string} text @param {string} [kind] */
function say(text, kind) {
  const status = $("status");
  status.textContent = text;
  status.className = kind || "";
}

/** @param {string} text */
function badge(text) { return el("span", { class: "badge", text: text }); }

/**
 * @param {string} kind
 * @param {string} name
 * @param {string} title
 * @param {Child[]} extra
 * @param {Child[]} body
 */
function card(kind, name, title, extra, body) {
  return el("details", { class: "card " + kind, id: cardId(kind, name) }, [
    el("summary", null, /** @type {Child[]} */ ([el("span", { class: "title", text: title }), " ", name !== title ? el("code", { text: name }) : null]).concat(extra || [])),
    el("div", { class: "card-body" }, body),
  ]);
}

/** @param {Wire} err */
function errorView(err) {
  return el("div", { class: "result is-error" }, [el("p", { class: "error-title", role: "alert", text: (err && err.code !== undefined ? "Error " + err.code + ": " : "Error: ") + (err && err.message ? err.message : String(err)) })]);
}

/** @param {Wire} tool @returns {string | null} */
function appUri(tool) {
  const meta = tool._meta || {};
  const uri = (meta.ui && meta.ui.resourceUri) || meta["ui/resourceUri"];
  return typeof uri === "string" && uri.indexOf("ui://") === 0 ? uri : null;
}

/**
 * Shows the tool's app under its run as soon as the call starts; null when there is none or it cannot be read.
 * @param {Call} call
 * @returns {Promise<import("./apps.js").AppHandle | null>}
 */
async function startApp(call) {
  const uri = appUri(call.tool);
  if (!uri) return null;
  try {
    const read = await connected().request("resources/read", { uri: uri });
    const content = (read.contents || []).filter(function (/** @type {Wire} */ c) { return typeof c.text === "string"; })[0];
    if (!content || call.cancelled) return null;
    const app = appView(frameBase, content.text, {
      tool: call.tool, input: call.input, requestId: call.requestId, meta: content._meta,
      onLog: function (params) { logLine(call.view.log, params); },
    });
    call.view.app.replaceChildren(el("h4", { text: "App" }), app.node);
    return app;
  } catch (/** @type {any} */ e) {
    call.view.app.replaceChildren(el("p", { class: "muted", text: "The app could not be loaded: " + (e && e.message ? e.message : String(e)) }));
    return null;
  }
}

/** @param {Wire} tool */
function toolCard(tool) {
  const title = tool.title || (tool.annotations && tool.annotations.title) || tool.name;
  const built = buildFields(formModel(tool.inputSchema || {}), "tool-" + tool.name);
  // Not a live region: the run's own status line (role=status) announces the outcome.
  const output = el("div", { class: "output" });
  const runButton = el("button", { type: "submit", class: "primary", text: "Run" });
  const cancelButton = el("button", { type: "button", class: "cancel", text: "Cancel", disabled: true });
  const formError = el("p", { class: "form-error", role: "alert", hidden: true });
  const form = el("form", { novalidate: true, "aria-label": "Arguments of " + tool.name }, [built.node, formError, el("div", { class: "actions" }, [runButton, cancelButton])]);
  /** @type {Call | null} */
  let current = null;
  /** @type {import("./apps.js").AppHandle | null} */
  let lastApp = null;
  cancelButton.addEventListener("click", function () { if (current) cancelCall(connected(), current); });
  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    const parsed = readForm(built, form);
    formError.hidden = !parsed.errors;
    formError.textContent = parsed.errors ? "Fix " + parsed.errors.map(function (e) { return e.path + " (" + e.message + ")"; }).join(", ") + " before running." : "";
    if (parsed.errors || current) return;
    // The previous run's app is asked to clean up before its frame goes.
    if (lastApp) await lastApp.teardown();
    lastApp = null;
    const call = startCall(output, tool, parsed.value);
    current = call;
    runButton.disabled = true;
    cancelButton.disabled = false;
    /** @type {Wire} */
    const params = { name: tool.name, arguments: parsed.value, _meta: { progressToken: call.progressToken } };
    const support = tool.execution && tool.execution.taskSupport;
    if (support === "optional" || support === "required") params.task = {};
    let appReady = null;
    try {
      const pending = connected().request("tools/call", params, call);
      appReady = startApp(call);
      let result = await pending;
      if (result && result.task) result = await followTask(connected(), call, result.task);
      else if (result && jobHandle(result)) result = await followJob(connected(), call, jobHandle(result));
      const app = lastApp = await appReady;
      if (result && !call.cancelled) {
        setStatus(call, result.isError ? "Finished with an error" : "Done", result.isError ? "bad" : "good");
        if (!call.view.bar.hidden && call.view.bar.hasAttribute("value")) call.view.bar.value = call.view.bar.max;
        call.view.result.replaceChildren(resultView(result, frameBase));
        if (app) app.result(result);
      } else {
        setStatus(call, "Cancelled", "bad");
        if (app) app.cancelled("Cancelled in the console");
      }
    } catch (/** @type {any} */ err) {
      const app = lastApp = appReady ? await appReady : null;
      if (call.cancelled) {
        setStatus(call, "Cancelled", "bad");
        if (app) app.cancelled("Cancelled in the console");
      } else {
        setStatus(call, "Failed", "bad");
        call.view.result.replaceChildren(errorView(err));
        if (app) app.result({ isError: true, content: [{ type: "text", text: err && err.message ? String(err.message) : String(err) }] });
      }
    } finally {
      finishCall(call);
      current = null;
      runButton.disabled = false;
      cancelButton.disabled = true;
    }
  });
  /** @type {HTMLElement[]} */
  const badges = [];
  if (tool.execution && tool.execution.taskSupport && tool.execution.taskSupport !== "forbidden") badges.push(badge("async"));
  if (tool.annotations && tool.annotations.readOnlyHint) badges.push(badge("read-only"));
  if (tool.annotations && tool.annotations.destructiveHint) badges.push(badge("destructive"));
  if (appUri(tool)) badges.push(badge("app"));
  if (toolVisibility(tool).indexOf("model") === -1) badges.push(badge("app only"));
  return card("tool", tool.name, title, badges, [tool.description ? el("p", { class: "desc", text: tool.description }) : null, form, output]);
}

/**
 * A resource, template or prompt with its form and a button that reads it.
 * @param {string} kind
 * @param {string} name
 * @param {string} title
 * @param {string | undefined} description
 * @param {Field[]} fields
 * @param {(values: Record<string, unknown>) => Promise<HTMLElement>} action
 */
function readerCard(kind, name, title, description, fields, action) {
  const built = buildFields(fields, kind + "-" + name);
  const output = el("div", { class: "output", "aria-live": "polite" });
  const form = el("form", { novalidate: true, "aria-label": title }, [built.node, el("div", { class: "actions" }, [el("button", { type: "submit", class: "primary", text: kind === "prompt" ? "Get" : "Read" })])]);
  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    const parsed = readForm(built, form);
    if (parsed.errors) return;
    output.replaceChildren(el("p", { class: "run-status busy", role: "status", text: "Loading…" }));
    try {
      output.replaceChildren(await action(parsed.value || {}));
    } catch (err) {
      output.replaceChildren(errorView(err));
    }
  });
  return card(kind, name, title, [], [description ? el("p", { class: "desc", text: description }) : null, form, output]);
}

/** @param {Wire} read */
function contentsView(read) {
  return el("div", { class: "result" }, (read.contents || []).map(function (/** @type {Wire} */ c) { return resourceView(c, frameBase); }));
}

/** The variables of a URI template (RFC 6570), in order. @param {string} template */
function templateVars(template) {
  /** @type {string[]} */
  const names = [];
  template.replace(/\{[+#./;?&]?([^}]+)\}/g, function (_, /** @type {string} */ list) {
    list.split(",").forEach(function (n) { n = n.replace(/[*]|:\d+$/g, ""); if (names.indexOf(n) === -1) names.push(n); });
    return "";
  });
  return names;
}

/** @param {string} template @param {Record<string, unknown>} values */
function expandTemplate(template, values) {
  return template.replace(/\{([+#./;?&]?)([^}]+)\}/g, function (_, /** @type {string} */ op, /** @type {string} */ list) {
    const parts = list.split(",").map(function (n) { return n.replace(/[*]|:\d+$/g, ""); }).filter(function (n) { return values[n] !== undefined; });
    const enc = function (/** @type {unknown} */ v) { return op === "+" || op === "#" ? encodeURI(String(v)) : encodeURIComponent(String(v)); };
    if (op === "?" || op === "&") return parts.length ? op + parts.map(function (n) { return n + "=" + enc(values[n]); }).join("&") : "";
    const sep = op === "." ? "." : op === "/" ? "/" : ",";
    const lead = op === "+" || op === "" ? "" : op;
    return parts.length ? lead + parts.map(function (n) { return enc(values[n]); }).join(sep) : "";
  });
}

/** @param {Wire} got */
function promptView(got) {
  const items = (got.messages || []).map(function (/** @type {Wire} */ m) {
    return el("li", null, [el("span", { class: "badge", text: m.role }), " ", contentBlock(m.content || {}, frameBase)]);
  });
  return el("div", { class: "result" }, [got.description ? el("p", { class: "desc", text: got.description }) : null, el("ol", { class: "messages" }, items)]);
}

/** Every page of a list. @param {string} method @param {string} key @returns {Promise<Wire[]>} */
async function listAll(method, key) {
  /** @type {Wire[]} */
  const out = [];
  /** @type {string | undefined} */
  let cursor;
  do {
    /** @type {Wire} */
    const page = await connected().request(method, cursor ? { cursor: cursor } : {});
    out.push.apply(out, page[key] || []);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

/** @param {string} sectionId @param {string} listId @param {HTMLElement[]} nodes */
function fill(sectionId, listId, nodes) {
  $(sectionId).hidden = nodes.length === 0;
  $(listId).replaceChildren.apply($(listId), nodes);
}

/** What each list showed last, as JSON: a reload that finds it unchanged keeps the cards (and the runs in them). @type {Map<string, string>} */
const shown = new Map();
/** @param {string} listId @param {Wire[]} items */
function unchanged(listId, items) {
  const now = JSON.stringify(items);
  if (shown.get(listId) === now) return true;
  shown.set(listId, now);
  return false;
}

async function loadCatalogue() {
  if (capabilities.tools) {
    const tools = await listAll("tools/list", "tools");
    appHost.tools = new Map(tools.map(function (t) { return [t.name, t]; }));
    if (unchanged("tools", tools)) return loadReaders();
    // A job is polled by the console itself (followJob): a form for the polling tool would only confuse.
    fill("tools-section", "tools", tools.filter(function (t) { return t.name !== JOB_TOOL; }).map(toolCard));
  }
  return loadReaders();
}

/** The resource, template and prompt cards, each list re-rendered only when it changed. */
async function loadReaders() {
  if (capabilities.resources) {
    const resources = await listAll("resources/list", "resources");
    if (!unchanged("resources", resources)) fill("resources-section", "resources", resources.map(function (r) {
      return readerCard("resource", r.uri, r.title || r.name || r.uri, r.description, [], function () {
        return connected().request("resources/read", { uri: r.uri }).then(contentsView);
      });
    }));
    const templates = await listAll("resources/templates/list", "resourceTemplates");
    if (!unchanged("templates", templates)) fill("templates-section", "templates", templates.map(function (t) {
      const fields = templateVars(t.uriTemplate).map(function (n) { return fieldModel(n, { type: "string" }, true); });
      return readerCard("template", t.uriTemplate, t.title || t.name || t.uriTemplate, t.description, fields, function (values) {
        return connected().request("resources/read", { uri: expandTemplate(t.uriTemplate, values) }).then(contentsView);
      });
    }));
  }
  if (capabilities.prompts) {
    const prompts = await listAll("prompts/list", "prompts");
    if (!unchanged("prompts", prompts)) fill("prompts-section", "prompts", prompts.map(function (p) {
      const fields = (p.arguments || []).map(function (/** @type {Wire} */ a) { return fieldModel(a.name, { type: "string", title: a.title, description: a.description }, !!a.required); });
      return readerCard("prompt", p.name, p.title || p.name, p.description, fields, function (values) {
        return connected().request("prompts/get", { name: p.name, arguments: values }).then(promptView);
      });
    }));
  }
}

/** @type {Promise<void> | null} */
let reloading = null;
function reloadSoon() {
  if (reloading) return;
  reloading = Promise.resolve().then(loadCatalogue).catch(function (e) { say("Could not reload the lists: " + e.message, "bad"); }).then(function () { reloading = null; });
}

/** @type {import("./rpc.js").ClientHooks} */
const hooks = {
  onNewSession: function () {
    say("The server restarted; its lists were reloaded", "good");
    reloadSoon();
  },
  onNotification: function (message, call) {
    const params = message.params || {};
    const target = callFor(message, call);
    if (message.method === "notifications/progress") {
      if (target) onProgress(target, params);
    } else if (message.method === "notifications/message") {
      logLine(target ? target.view.log : $("server-log"), params);
      if (!target) $("log-section").hidden = false;
    } else if (/^notifications\/(tools|resources|prompts)\/list_changed$/.test(message.method)) {
      reloadSoon();
    } else if (message.method === "notifications/tasks/status" && target && target.wake) {
      target.wake();
    }
  },
  onRequest: function (message, call) {
    if (message.method === "ping") return {};
    if (message.method === "elicitation/create") {
      const target = callFor(message, call);
      if (!target) $("asks-section").hidden = false;
      return elicitationForm(target ? target.view.askSlot : $("asks"), message.params || {}, target ? target.asks : globalAsks);
    }
    throw Object.assign(new Error("Method not found: " + message.method), { code: -32601 });
  },
  onError: function (err) { say("Could not answer the server: " + err.message, "bad"); },
};

async function boot() {
  client = createClient(new URL("mcp", base).href, hooks);
  appHost.rpc = client;
  say("Connecting…", "busy");
  try {
    const init = await client.initialize({
      protocolVersion: "2025-11-25",
      capabilities: { elicitation: { form: {}, url: {} }, tasks: {} },
      clientInfo: { name: "hubmcp-console", title: "Tool console", version: "1.0.0" },
    });
    capabilities = init.capabilities || {};
    const info = init.serverInfo || {};
    const name = info.title || info.name || "MCP server";
    document.title = name + " · tool console";
    $("server-title").textContent = name;
    $("server-meta").textContent = [info.title ? info.name : "", info.version ? "v" + info.version : "", "protocol " + init.protocolVersion].filter(Boolean).join(" · ");
    if (init.instructions) {
      $("instructions").textContent = init.instructions;
      $("instructions").hidden = false;
    }
    if (capabilities.logging) {
      $("log-level-row").hidden = false;
      await client.request("logging/setLevel", { level: levelPicker().value });
    }
    await client.listen();
    await loadCatalogue();
    say("Connected", "good");
    document.body.setAttribute("data-ready", "true");
  } catch (/** @type {any} */ err) {
    say("Could not connect: " + (err && err.message ? err.message : String(err)), "bad");
  }
}

$("log-level").addEventListener("change", function () {
  if (client) client.request("logging/setLevel", { level: levelPicker().value }).catch(function (e) { say("Could not set the log level: " + e.message, "bad"); });
});
window.addEventListener("pagehide", function () { if (client) client.close(); });
// Back from the page cache the session is gone: start afresh.
window.addEventListener("pageshow", function (event) { if (event.persisted) location.reload(); });
boot();
