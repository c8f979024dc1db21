// One run of a tool: its output panel, progress, log lines, elicitation
// forms, cancellation, and following a task or job until it is done.
import { el, uid } from "./dom.js";
import { formModel } from "./form-model.js";
import { buildFields, readForm } from "./render.js";

/** @typedef {import("./rpc.js").Client} Client */
/** @typedef {import("./render.js").BuiltFields} BuiltFields */
/** @typedef {import("./rpc.js").Wire} Wire */
/** A question on screen; drop() withdraws it (answered as cancelled). @typedef {{ drop(): void }} Ask */
/**
 * One run of a tool, from its Run button to its result.
 * @typedef {object} Call
 * @property {Wire} tool
 * @property {Record<string, unknown> | undefined} input
 * @property {string} progressToken
 * @property {number | null} requestId
 * @property {string | null} taskId
 * @property {string | null} jobId
 * @property {AbortController} abort
 * @property {boolean} cancelled
 * @property {boolean} done
 * @property {(() => void) | null} wake cuts short the wait before the next poll
 * @property {Ask[]} asks
 * @property {{ status: HTMLElement, bar: HTMLProgressElement, barText: HTMLElement, log: HTMLOListElement, askSlot: HTMLElement, result: HTMLElement, app: HTMLElement }} view
 */
const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];
/** @type {Map<unknown, Call>} */
const callsByToken = new Map();
/** @type {Map<string, Call>} */
const callsByTask = new Map();
let tokenCounter = 0;

/** @param {Wire} message @returns {string | null} */
function relatedTask(message) {
  const meta = message.params && message.params._meta;
  const related = meta && meta["io.modelcontextprotocol/related-task"];
  return related && typeof related.taskId === "string" ? related.taskId : null;
}

/**
 * The run a message from the server is about: the one whose request stream carried it, else
 * the one its progress token or task names.
 * @param {Wire} message
 * @param {Call | null | undefined} call
 * @returns {Call | null}
 */
export function callFor(message, call) {
  if (call) return call;
  const params = message.params || {};
  if (params.progressToken !== undefined && callsByToken.has(params.progressToken)) return /** @type {Call} */ (callsByToken.get(params.progressToken));
  const task = relatedTask(message) || (typeof params.taskId === "string" ? params.taskId : null);
  return task ? callsByTask.get(task) || null : null;
}

/** @param {HTMLElement} list @param {Wire} params */
export function logLine(list, params) {
  const data = typeof params.data === "string" ? params.data : JSON.stringify(params.data);
  const level = LOG_LEVELS.indexOf(params.level) === -1 ? "info" : params.level;
  list.hidden = false;
  list.appendChild(el("li", { class: "log-" + level }, [el("span", { class: "level", text: level }), " ", params.logger ? el("span", { class: "logger", text: params.logger + ": " }) : null, data]));
}

/**
 * Makes the output panel of a run inside container; returns the call record.
 * @param {HTMLElement} container
 * @param {Wire} tool
 * @param {Record<string, unknown> | undefined} input
 * @returns {Call}
 */
export function startCall(container, tool, input) {
  const status = el("p", { class: "run-status", role: "status", text: "Running…" });
  const bar = el("progress", { hidden: true, "aria-label": "Progress of " + tool.name, max: 1 });
  const barText = el("span", { class: "progress-text" });
  const log = el("ol", { class: "log", hidden: true, "aria-label": "Log of " + tool.name });
  const asks = el("div", { class: "asks" });
  const result = el("div", { class: "result-slot" });
  const app = el("div", { class: "app-slot" });
  container.replaceChildren(el("div", { class: "run" }, [status, el("div", { class: "progress-row" }, [bar, barText]), log, asks, result, app]));
  const call = {
    tool: tool, input: input, progressToken: "console-" + (++tokenCounter), requestId: null, taskId: null,
    jobId: null, abort: new AbortController(), cancelled: false, done: false, wake: null, asks: [],
    view: { status: status, bar: bar, barText: barText, log: log, askSlot: asks, result: result, app: app },
  };
  callsByToken.set(call.progressToken, call);
  return call;
}

/** @param {Call} call @param {string} text @param {string} [kind] */
export function setStatus(call, text, kind) {
  call.view.status.textContent = text;
  call.view.status.className = "run-status" + (kind ? " " + kind : "");
}

/** @param {Call} call @param {Wire} params */
export function onProgress(call, params) {
  const bar = call.view.bar;
  bar.hidden = false;
  if (typeof params.total === "number" && params.total > 0) {
    bar.max = params.total;
    bar.value = Math.min(params.progress, params.total);
  } else {
    bar.removeAttribute("value");
  }
  call.view.barText.textContent = params.message ? String(params.message) : typeof params.total === "number" ? params.progress + " / " + params.total : String(params.progress);
}

/** @param {Call} call */
export function finishCall(call) {
  call.done = true;
  callsByToken.delete(call.progressToken);
  if (call.taskId) callsByTask.delete(call.taskId);
  call.asks.splice(0).forEach(function (ask) { ask.drop(); });
}

/**
 * An elicitation form (form or URL mode); resolves with the answer the user picks.
 * @param {HTMLElement} slot
 * @param {Wire} params
 * @param {Ask[]} owner the questions of the run (or the page) it belongs to
 * @returns {Promise<{ action: string, content?: Record<string, unknown> }>}
 */
export function elicitationForm(slot, params, owner) {
  return new Promise(function (resolve) {
    const messageId = uid("ask");
    const url = params.mode === "url" ? params.url : null;
    const built = url ? null : buildFields(formModel(params.requestedSchema || {}), messageId);
    const form = el("form", { class: "ask", novalidate: true, "aria-labelledby": messageId }, [
      el("p", { class: "ask-title", id: messageId, text: params.message || "The tool asks for input" }),
      url ? el("p", null, [el("a", { href: url, target: "_blank", rel: "noopener noreferrer", text: url })]) : /** @type {BuiltFields} */ (built).node,
    ]);
    let settled = false;
    /** @param {{ action: string, content?: Record<string, unknown> }} result @param {string} note */
    function answer(result, note) {
      if (settled) return;
      settled = true;
      form.replaceWith(el("p", { class: "muted", text: note }));
      const at = owner.indexOf(ask);
      if (at !== -1) owner.splice(at, 1);
      resolve(result);
    }
    const ask = { drop: function () { answer({ action: "cancel" }, "Question withdrawn."); } };
    owner.push(ask);
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (url) return answer({ action: "accept" }, "You accepted.");
      const parsed = readForm(/** @type {BuiltFields} */ (built), form);
      if (!parsed.errors) answer({ action: "accept", content: parsed.value }, "You answered.");
    });
    const actions = el("div", { class: "actions" }, [
      el("button", { type: "submit", class: "primary", text: "Accept" }),
      el("button", { type: "button", text: "Decline", onclick: function () { answer({ action: "decline" }, "You declined."); } }),
      el("button", { type: "button", text: "Cancel", onclick: function () { answer({ action: "cancel" }, "You cancelled the question."); } }),
    ]);
    form.appendChild(actions);
    slot.appendChild(form);
    const first = /** @type {HTMLElement | null} */ (form.querySelector("input, select, textarea, a, button"));
    if (first) first.focus();
  });
}

/** @param {Call} call @param {number} ms @returns {Promise<void>} */
function sleepUntil(call, ms) {
  return new Promise(function (resolve) {
    const timer = setTimeout(resolve, ms);
    call.wake = function () { clearTimeout(timer); resolve(); };
  });
}

/** @type {Record<string, string>} */
const TASK_WORDS = { working: "Working", input_required: "Waiting for your input", completed: "Completed", failed: "Failed", cancelled: "Cancelled" };

/**
 * Polls a task until it is terminal; answers the tool result, or null once cancelled.
 * @param {Client} client
 * @param {Call} call
 * @param {Wire} task
 * @returns {Promise<Wire>}
 */
export async function followTask(client, call, task) {
  call.taskId = task.taskId;
  callsByTask.set(task.taskId, call);
  for (;;) {
    setStatus(call, "Task " + (TASK_WORDS[task.status] || task.status) + (task.statusMessage ? ": " + task.statusMessage : ""), "busy");
    if (task.status === "completed") return client.request("tasks/result", { taskId: call.taskId });
    if (task.status === "failed") return { isError: true, content: [{ type: "text", text: task.statusMessage || "The task failed" }] };
    if (task.status === "cancelled" || call.cancelled) return null;
    const every = Math.min(Math.max(Number(task.pollInterval) || 1000, 200), 5000);
    await sleepUntil(call, every);
    if (call.cancelled) return null;
    const answer = await client.request("tasks/get", { taskId: call.taskId });
    task = answer.task || answer;
  }
}

/** An older-style job's handle in a result, if it is one. @param {Wire} result @returns {Wire} */
export function jobHandle(result) {
  const text = result && Array.isArray(result.content) && result.content[0] && result.content[0].text;
  if (result.isError || typeof text !== "string" || text.indexOf("job_id") === -1) return null;
  try {
    const job = JSON.parse(text);
    return job && job.status === "running" && typeof job.job_id === "string" ? job : null;
  } catch { return null; }
}

/** The polling tool of older-style jobs: the console calls it itself, so it offers no form for it. */
export const JOB_TOOL = "get_job_result";

/**
 * Polls an older-style job through get_job_result.
 * @param {Client} client
 * @param {Call} call
 * @param {Wire} job
 * @returns {Promise<Wire>}
 */
export async function followJob(client, call, job) {
  call.jobId = job.job_id;
  for (;;) {
    setStatus(call, "Job " + job.status, "busy");
    if (job.status === "done") return { content: [{ type: "text", text: typeof job.result === "string" ? job.result : JSON.stringify(job.result) }], structuredContent: job.result !== null && typeof job.result === "object" ? job.result : undefined };
    if (job.status === "error" || job.status === "not_found") return { isError: true, content: [{ type: "text", text: job.error || "The job " + job.status.replace("_", " ") }] };
    if (job.status === "cancelled" || call.cancelled) return null;
    await sleepUntil(call, 1000);
    if (call.cancelled) return null;
    const polled = await client.request("tools/call", { name: JOB_TOOL, arguments: { job_id: call.jobId } });
    job = JSON.parse(polled.content[0].text);
  }
}

/**
 * Cancel button: a task is cancelled with tasks/cancel, a plain call with notifications/cancelled.
 * @param {Client} client
 * @param {Call} call
 */
export async function cancelCall(client, call) {
  if (call.done || call.cancelled) return;
  call.cancelled = true;
  setStatus(call, "Cancelling…", "busy");
  call.asks.splice(0).forEach(function (ask) { ask.drop(); });
  try {
    if (call.taskId) await client.request("tasks/cancel", { taskId: call.taskId });
    else if (call.requestId !== null) {
      await client.notify("notifications/cancelled", { requestId: call.requestId, reason: "Cancelled in the console" });
      call.abort.abort();
    }
  } catch { /* the call may have finished meanwhile */ }
  if (call.wake) call.wake();
}
