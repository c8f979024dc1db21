// Building the page's elements: every node the console makes goes through el(), which sets
// text as text (never as HTML), so nothing from a server reaches the page as markup.

/** @typedef {Node | string | null | undefined | false} Child */

let uniqueIds = 0;

/** @param {string} base */
export function uid(base) { return base + "-" + (++uniqueIds); }

/**
 * An element with attributes (`text` sets its text, `class` its class, `on…` a listener;
 * true sets an empty attribute; null, undefined and false set none) and children.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, unknown> | null} [attrs]
 * @param {Child[]} [children]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, attrs, children) {
  const node = document.createElement(tag);
  if (attrs) {
    Object.keys(attrs).forEach(function (k) {
      const v = attrs[k];
      if (v === undefined || v === null || v === false) return;
      if (k === "text") node.textContent = String(v);
      else if (k === "class") node.className = String(v);
      else if (k.slice(0, 2) === "on") node.addEventListener(k.slice(2), /** @type {EventListener} */ (v));
      else if (v === true) node.setAttribute(k, "");
      else node.setAttribute(k, String(v));
    });
  }
  (children || []).forEach(function (c) {
    if (c === null || c === undefined || c === false) return;
    node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
  });
  return node;
}
