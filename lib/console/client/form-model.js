// JSON Schema → form model, and form text → argument values. Pure functions (no DOM) so
// spec/console/client/form-model.spec.ts runs them in Node.

/** A JSON Schema as the server sent it: unchecked, read defensively. @typedef {any} Schema */
/** @typedef {{ value: unknown, label: string }} Option */
/**
 * One input of a form: what it reads, how it checks it, what it starts with.
 * @typedef {object} Field
 * @property {string} name
 * @property {string} label
 * @property {string} description
 * @property {boolean} required
 * @property {"json" | "enum" | "multi" | "number" | "integer" | "string" | "boolean" | "list" | "object"} kind
 * @property {unknown} default
 * @property {Option[]} [options] enum and multi
 * @property {number} [min]
 * @property {number} [max]
 * @property {number} [exclusiveMin]
 * @property {number} [exclusiveMax]
 * @property {number | "any"} [step]
 * @property {number} [minLength]
 * @property {number} [maxLength]
 * @property {string} [pattern]
 * @property {string} [format]
 * @property {Field} [item] a list's items
 * @property {number} [minItems]
 * @property {number} [maxItems]
 * @property {Field[]} [fields] an object's properties
 */
/** @typedef {{ path: string, message: string }} FieldError */
/** A form's values, or what is wrong with them. @typedef {{ value?: Record<string, unknown>, errors?: FieldError[] }} Parsed */
/** One field's value, or that it is left out, or what is wrong with it. @typedef {{ value?: unknown, omit?: boolean, error?: string, errors?: FieldError[] }} FieldResult */
/** @param {Schema} schema @returns {string | undefined} */
function schemaType(schema) {
  const t = schema && schema.type;
  if (Array.isArray(t)) return t.filter(function (x) { return x !== "null"; })[0] || "string";
  return t;
}

/** @param {Schema} schema @returns {Option[] | null} */
function enumOptions(schema) {
  if (!schema) return null;
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    return schema.enum.map(function (/** @type {unknown} */ v, /** @type {number} */ i) { return { value: v, label: names[i] != null ? String(names[i]) : String(v) }; });
  }
  const alts = schema.oneOf || schema.anyOf;
  if (Array.isArray(alts) && alts.length > 0 && alts.every(function (a) { return a && "const" in a; })) {
    return alts.map(function (a) { return { value: a.const, label: a.title != null ? String(a.title) : String(a.const) }; });
  }
  return null;
}

/** @param {string} name @param {Schema} schema @param {boolean} required @returns {Field} */
export function fieldModel(name, schema, required) {
  schema = schema || {};
  const type = schemaType(schema);
  /** @type {Field} */
  const f = {
    name: name,
    label: schema.title ? String(schema.title) : name,
    description: schema.description ? String(schema.description) : "",
    required: required,
    kind: "json",
    default: schema.default,
  };
  const options = enumOptions(schema);
  if (options) {
    f.kind = "enum";
    f.options = options;
  } else if (type === "number" || type === "integer") {
    f.kind = type;
    if (typeof schema.minimum === "number") f.min = schema.minimum;
    if (typeof schema.maximum === "number") f.max = schema.maximum;
    if (typeof schema.exclusiveMinimum === "number") f.exclusiveMin = schema.exclusiveMinimum;
    if (typeof schema.exclusiveMaximum === "number") f.exclusiveMax = schema.exclusiveMaximum;
    f.step = typeof schema.multipleOf === "number" ? schema.multipleOf : type === "integer" ? 1 : "any";
  } else if (type === "string") {
    f.kind = "string";
    if (typeof schema.minLength === "number") f.minLength = schema.minLength;
    if (typeof schema.maxLength === "number") f.maxLength = schema.maxLength;
    if (typeof schema.pattern === "string") f.pattern = schema.pattern;
    if (typeof schema.format === "string") f.format = schema.format;
  } else if (type === "boolean") {
    f.kind = "boolean";
  } else if (type === "array") {
    const items = schema.items || {};
    const itemOptions = enumOptions(items);
    const itemType = schemaType(items);
    if (itemOptions) {
      f.kind = "multi";
      f.options = itemOptions;
    } else if (itemType === "number" || itemType === "integer" || itemType === "string" || itemType === "boolean") {
      f.kind = "list";
      f.item = fieldModel(name, items, true);
    }
    if (typeof schema.minItems === "number") f.minItems = schema.minItems;
    if (typeof schema.maxItems === "number") f.maxItems = schema.maxItems;
  } else if (type === "object" && schema.properties && typeof schema.properties === "object") {
    f.kind = "object";
    f.fields = formModel(schema);
  }
  return f;
}

/** The fields of an object schema, in property order. @param {Schema} schema @returns {Field[]} */
export function formModel(schema) {
  const props = (schema && schema.properties) || {};
  const required = Array.isArray(schema && schema.required) ? schema.required : [];
  return Object.keys(props).map(function (name) { return fieldModel(name, props[name], required.indexOf(name) !== -1); });
}

/** The text an input starts with: the default, as the field shows it. @param {Field} f */
export function initialText(f) {
  const d = f.default;
  if (d === undefined) return "";
  if (f.kind === "list") return Array.isArray(d) ? d.map(String).join("\n") : "";
  if (f.kind === "json") return JSON.stringify(d, null, 2);
  return String(d);
}

/** Nothing entered: an optional nested object left like this is left out. @param {unknown} raw @returns {boolean} */
function isBlank(raw) {
  if (raw === undefined || raw === null || raw === false || raw === "") return true;
  if (typeof raw === "string") return raw.trim() === "";
  if (Array.isArray(raw)) return raw.length === 0;
  if (typeof raw === "object") return Object.values(raw).every(isBlank);
  return false;
}

/** @param {string} message @returns {FieldResult} */
function fail(message) { return { error: message }; }

/**
 * Reads one field. raw is the input's text (a boolean for checkboxes, the list of chosen
 * option indexes for "multi", an object of raws for "object"). Answers {value}, {omit} or {error}.
 * @param {Field} f
 * @param {any} raw
 * @returns {FieldResult}
 */
function parseField(f, raw) {
  if (f.kind === "boolean") return { value: raw === true };
  if (f.kind === "object") return !f.required && isBlank(raw) ? { omit: true } : parseFields(f.fields || [], raw || {});
  if (f.kind === "multi") {
    const options = f.options || [];
    const picked = (raw || []).map(function (/** @type {string} */ i) { return /** @type {Option} */ (options[Number(i)]).value; });
    if (picked.length === 0 && !f.required) return { omit: true };
    return checkCount(f, picked);
  }
  const text = typeof raw === "string" ? raw : "";
  if (text.trim() === "") return f.required ? fail("is required") : { omit: true };
  if (f.kind === "enum") {
    const option = (f.options || [])[Number(text)];
    return option ? { value: option.value } : fail("is not one of the choices");
  }
  if (f.kind === "number" || f.kind === "integer") return parseNumber(f, text);
  if (f.kind === "string") return parseString(f, text);
  if (f.kind === "list") {
    const lines = text.split(/\r?\n/).filter(function (l) { return l.trim() !== ""; });
    const out = [];
    for (let i = 0; i < lines.length; i++) {
      const item = parseField(/** @type {Field} */ (f.item), lines[i]);
      if (item.error) return fail("item " + (i + 1) + " " + item.error);
      out.push(item.value);
    }
    return checkCount(f, out);
  }
  try {
    return { value: JSON.parse(text) };
  } catch {
    return fail("is not valid JSON");
  }
}

/** @param {Field} f @param {unknown[]} items @returns {FieldResult} */
function checkCount(f, items) {
  if (f.minItems !== undefined && items.length < f.minItems) return fail("needs at least " + f.minItems + " items");
  if (f.maxItems !== undefined && items.length > f.maxItems) return fail("takes at most " + f.maxItems + " items");
  return { value: items };
}

/** @param {Field} f @param {string} text @returns {FieldResult} */
function parseNumber(f, text) {
  const n = Number(text.trim());
  if (!Number.isFinite(n)) return fail("must be a number");
  if (f.kind === "integer" && !Number.isInteger(n)) return fail("must be a whole number");
  if (f.min !== undefined && n < f.min) return fail("must be at least " + f.min);
  if (f.max !== undefined && n > f.max) return fail("must be at most " + f.max);
  if (f.exclusiveMin !== undefined && n <= f.exclusiveMin) return fail("must be greater than " + f.exclusiveMin);
  if (f.exclusiveMax !== undefined && n >= f.exclusiveMax) return fail("must be less than " + f.exclusiveMax);
  return { value: n };
}

/** @param {Field} f @param {string} text @returns {FieldResult} */
function parseString(f, text) {
  const length = Array.from(text).length;
  if (f.minLength !== undefined && length < f.minLength) return fail("needs at least " + f.minLength + " characters");
  if (f.maxLength !== undefined && length > f.maxLength) return fail("takes at most " + f.maxLength + " characters");
  if (f.pattern !== undefined) {
    let re = null;
    try { re = new RegExp(f.pattern, "u"); } catch { re = null; }
    if (re && !re.test(text)) return fail("does not match the expected pattern");
  }
  return { value: text };
}

/**
 * Reads a list of fields into an object; errors are [{path, message}].
 * @param {Field[]} fields
 * @param {Record<string, unknown>} raws
 * @returns {Parsed}
 */
export function parseFields(fields, raws) {
  /** @type {Record<string, unknown>} */
  const value = {};
  /** @type {FieldError[]} */
  const errors = [];
  fields.forEach(function (f) {
    const r = parseField(f, raws[f.name]);
    if (r.errors) r.errors.forEach(function (e) { errors.push({ path: f.name + "." + e.path, message: e.message }); });
    else if (r.error) errors.push({ path: f.name, message: r.error });
    else if (!r.omit) value[f.name] = r.value;
  });
  return errors.length ? { errors: errors } : { value: value };
}
