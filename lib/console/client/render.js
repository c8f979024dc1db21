// Forms from the form model, JSON trees and content blocks (an MCP App resource is shown by
// the host in ./apps.js).
import { appView } from "./apps.js";
import { el, uid } from "./dom.js";
import { initialText, parseFields } from "./form-model.js";

/** @typedef {import("./form-model.js").Field} Field */
/** @typedef {import("./form-model.js").FieldError} FieldError */
/** @typedef {import("./form-model.js").Parsed} Parsed */
/** @typedef {import("./dom.js").Child} Child */
/** @typedef {import("./rpc.js").Wire} Wire */
/**
 * A form model turned into inputs.
 * @typedef {object} BuiltFields
 * @property {HTMLElement} node
 * @property {() => Record<string, unknown>} read the raw text of every input, by field name
 * @property {(errors: FieldError[]) => void} showErrors
 * @property {Field[]} fields
 */
/** @typedef {{ error: HTMLElement, control: HTMLElement | null, inner?: BuiltFields }} ErrorSlot */

// ---- forms ----

/**
 * Builds inputs for a form model.
 * @param {Field[]} fields
 * @param {string} prefix
 * @returns {BuiltFields}
 */
export function buildFields(fields, prefix) {
  /** @type {Record<string, () => unknown>} */
  const readers = {};
  /** @type {Record<string, ErrorSlot>} */
  const errorSlots = {};
  const nodes = fields.map(function (f) {
    const id = uid(prefix + "-" + f.name.replace(/[^A-Za-z0-9_-]/g, "_"));
    const helpId = id + "-help";
    const errId = id + "-error";
    const described = (f.description ? helpId + " " : "") + errId;
    const help = f.description ? el("p", { class: "help", id: helpId, text: f.description }) : null;
    const error = el("p", { class: "field-error", id: errId, hidden: true });
    const mark = f.required ? el("span", { class: "required", text: " (required)" }) : null;
    /** @type {HTMLElement} */
    let control;
    if (f.kind === "object") {
      const inner = buildFields(f.fields || [], id);
      readers[f.name] = inner.read;
      errorSlots[f.name] = { error: error, control: null, inner: inner };
      return el("fieldset", { class: "nested", "aria-describedby": described }, [el("legend", null, [f.label, mark]), help, inner.node, error]);
    }
    if (f.kind === "boolean") {
      const box = el("input", { type: "checkbox", id: id, name: f.name, "aria-describedby": described, checked: f.default === true });
      readers[f.name] = function () { return box.checked; };
      errorSlots[f.name] = { error: error, control: box };
      return el("div", { class: "field check" }, [box, el("label", { for: id }, [f.label, mark]), help, error]);
    }
    if (f.kind === "enum" || f.kind === "multi") {
      const select = control = el("select", { id: id, name: f.name, "aria-describedby": described, required: f.required && f.kind === "enum", multiple: f.kind === "multi" });
      if (f.kind === "enum" && !(f.required && f.default !== undefined)) select.appendChild(el("option", { value: "", text: f.required ? "Choose…" : "(none)" }));
      /** @type {unknown[]} */
      const defaults = Array.isArray(f.default) ? f.default : [f.default];
      (f.options || []).forEach(function (o, i) {
        select.appendChild(el("option", { value: String(i), text: o.label, selected: defaults.some(function (d) { return d === o.value; }) }));
      });
      readers[f.name] = f.kind === "multi"
        ? function () { return Array.from(select.selectedOptions).map(function (o) { return o.value; }); }
        : function () { return select.value; };
    } else if (f.kind === "list" || f.kind === "json") {
      const area = control = el("textarea", { id: id, name: f.name, rows: 3, "aria-describedby": described, required: f.required, spellcheck: "false" });
      area.value = initialText(f);
      readers[f.name] = function () { return area.value; };
    } else {
      const numeric = f.kind === "number" || f.kind === "integer";
      const type = numeric ? "number" : f.format === "email" ? "email" : f.format === "uri" ? "url" : f.format === "date" ? "date" : "text";
      const input = control = el("input", {
        id: id, name: f.name, type: type, "aria-describedby": described, required: f.required,
        min: f.min !== undefined ? f.min : f.exclusiveMin, max: f.max !== undefined ? f.max : f.exclusiveMax,
        step: numeric ? f.step : undefined, inputmode: numeric ? (f.kind === "integer" ? "numeric" : "decimal") : undefined,
        minlength: f.minLength, maxlength: f.maxLength, autocomplete: "off",
      });
      input.value = initialText(f);
      readers[f.name] = function () { return input.value; };
    }
    errorSlots[f.name] = { error: error, control: control };
    const hint = f.kind === "list" ? el("span", { class: "hint", text: " one per line" }) : f.kind === "json" ? el("span", { class: "hint", text: " JSON" }) : null;
    return el("div", { class: "field" }, [el("label", { for: id }, [f.label, mark, hint]), control, help, error]);
  });
  function read() {
    /** @type {Record<string, unknown>} */
    const raws = {};
    Object.keys(readers).forEach(function (k) { raws[k] = /** @type {() => unknown} */ (readers[k])(); });
    return raws;
  }
  /** @param {FieldError[]} errors */
  function showErrors(errors) {
    Object.keys(errorSlots).forEach(function (name) {
      const slot = /** @type {ErrorSlot} */ (errorSlots[name]);
      const mine = (errors || []).filter(function (e) { return e.path === name; });
      const nested = (errors || []).filter(function (e) { return e.path.indexOf(name + ".") === 0; })
        .map(function (e) { return { path: e.path.slice(name.length + 1), message: e.message }; });
      if (slot.inner) slot.inner.showErrors(nested);
      slot.error.hidden = mine.length === 0;
      slot.error.textContent = mine[0] ? mine[0].message : "";
      if (slot.control) {
        if (mine.length) slot.control.setAttribute("aria-invalid", "true");
        else slot.control.removeAttribute("aria-invalid");
      }
    });
  }
  return { node: el("div", { class: "fields" }, nodes), read: read, showErrors: showErrors, fields: fields };
}

/**
 * Reads and checks a built form; shows the errors next to the fields and focuses the first.
 * @param {BuiltFields} built
 * @param {HTMLElement} root
 * @returns {Parsed}
 */
export function readForm(built, root) {
  const parsed = parseFields(built.fields, built.read());
  built.showErrors(parsed.errors || []);
  if (parsed.errors) {
    const first = /** @type {HTMLElement | null} */ (root.querySelector("[aria-invalid=true]"));
    if (first) first.focus();
  }
  return parsed;
}

// ---- results ----

/**
 * @param {unknown} value
 * @param {string | undefined} key
 * @param {number} depth
 * @returns {HTMLElement}
 */
function jsonTree(value, key, depth) {
  const label = key === undefined ? null : el("span", { class: "key", text: key + ": " });
  if (value !== null && typeof value === "object") {
    const isArray = Array.isArray(value);
    const record = /** @type {Record<string, unknown>} */ (value);
    const keys = Object.keys(record);
    const summary = el("summary", null, [label, el("span", { class: "shape", text: isArray ? "[" + keys.length + " items]" : "{" + keys.length + " keys}" })]);
    const list = el("ul", null, keys.map(function (k) { return el("li", null, [jsonTree(record[k], isArray ? "[" + k + "]" : k, depth + 1)]); }));
    return el("details", { class: "json", open: depth < 2 }, [summary, list]);
  }
  const type = value === null ? "null" : typeof value;
  return el("span", { class: "leaf" }, [label, el("span", { class: "v-" + type, text: type === "string" ? JSON.stringify(value) : String(value) })]);
}

/** @param {string | undefined} mime @param {string} base64 */
function dataUrl(mime, base64) { return "data:" + (mime || "application/octet-stream") + ";base64," + base64; }

/** @param {unknown} uri @param {unknown} mime */
function isAppResource(uri, mime) {
  return (typeof uri === "string" && uri.indexOf("ui://") === 0) || (typeof mime === "string" && mime.indexOf("text/html") === 0 && mime.indexOf("mcp-app") !== -1);
}

/** @param {string} text @param {string | null | undefined} mime */
function textView(text, mime) {
  if (mime && mime.indexOf("json") !== -1) {
    try { return jsonTree(JSON.parse(text), undefined, 0); } catch { /* shown as text */ }
  }
  return el("pre", { class: "text", text: text });
}

/** @param {Wire} r @param {string} frameBase */
export function resourceView(r, frameBase) {
  const head = el("p", { class: "uri" }, [r.uri || "", r.mimeType ? el("span", { class: "mime", text: " " + r.mimeType }) : null]);
  if (typeof r.text === "string") {
    if (isAppResource(r.uri, r.mimeType)) return el("div", { class: "resource" }, [head, appView(frameBase, r.text, { meta: r._meta }).node]);
    return el("div", { class: "resource" }, [head, textView(r.text, r.mimeType)]);
  }
  if (typeof r.blob === "string") {
    const mime = r.mimeType || "";
    if (mime.indexOf("image/") === 0) return el("div", { class: "resource" }, [head, el("img", { src: dataUrl(mime, r.blob), alt: r.uri || "image" })]);
    if (mime.indexOf("audio/") === 0) return el("div", { class: "resource" }, [head, el("audio", { controls: true, src: dataUrl(mime, r.blob) })]);
    return el("div", { class: "resource" }, [head, el("a", { href: dataUrl(mime, r.blob), download: "resource", text: "Download" })]);
  }
  return el("div", { class: "resource" }, [head]);
}

/** @param {Wire} block @param {string} frameBase */
export function contentBlock(block, frameBase) {
  switch (block && block.type) {
    case "text": return textView(block.text, null);
    case "image": return el("img", { class: "media", src: dataUrl(block.mimeType, block.data), alt: "Image result" });
    case "audio": return el("audio", { class: "media", controls: true, src: dataUrl(block.mimeType, block.data), "aria-label": "Audio result" });
    case "resource": return resourceView(block.resource || {}, frameBase);
    case "resource_link": return el("p", { class: "link" }, ["Resource: ", el("code", { text: block.uri }), block.name ? " (" + block.name + ")" : ""]);
    default: return jsonTree(block, undefined, 0);
  }
}

/**
 * A tool result: error banner, content blocks, structured content as a tree.
 * @param {Wire} result
 * @param {string} frameBase
 */
export function resultView(result, frameBase) {
  /** @type {HTMLElement[]} */
  const parts = [];
  if (result.isError) parts.push(el("p", { class: "error-title", role: "alert", text: "The tool reported an error" }));
  (result.content || []).forEach(function (/** @type {Wire} */ b) { parts.push(contentBlock(b, frameBase)); });
  if (result.structuredContent !== undefined) {
    parts.push(el("h4", { text: "Structured result" }), jsonTree(result.structuredContent, undefined, 0));
  }
  if (parts.length === 0) parts.push(el("p", { class: "muted", text: "(empty result)" }));
  return el("div", { class: result.isError ? "result is-error" : "result" }, parts);
}
