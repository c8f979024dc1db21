// `format`: an annotation unless the caller asks for assertion (`assertFormats`), as
// 2020-12's format-annotation vocabulary says. Unknown formats are always ignored.
import { isIPv6 } from "node:net";
import { fail, type Family } from "./shared.ts";

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>"{}|\\^`]*$/;
const EMAIL_LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const EMAIL_DOMAIN = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)*[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$|^\[[^\]\s]+\]$/;

const daysIn = (year: number, month: number) =>
  month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;

function isDate(s: string): boolean {
  const m = DATE.exec(s);
  if (!m) return false;
  const month = Number(m[2]);
  const day = Number(m[3]);
  return month >= 1 && month <= 12 && day >= 1 && day <= daysIn(Number(m[1]), month);
}

/** RFC 3339 full-time; a leap second (:60) only at 23:59 UTC. */
function isTime(s: string): boolean {
  const m = TIME.exec(s);
  if (!m) return false;
  const [h, min, sec] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [oh, om] = m[4] ? [Number(m[5]), Number(m[6])] : [0, 0];
  if (h > 23 || min > 59 || sec > 60 || oh > 23 || om > 59) return false;
  if (sec < 60) return true;
  const sign = m[4] === "-" ? 1 : -1;
  const utc = (((h * 60 + min + sign * (oh * 60 + om)) % 1440) + 1440) % 1440;
  return utc === 23 * 60 + 59;
}

function isDateTime(s: string): boolean {
  const t = s.search(/[Tt]/);
  return t === 10 && isDate(s.slice(0, 10)) && isTime(s.slice(11));
}

function isEmail(s: string): boolean {
  const at = s.lastIndexOf("@");
  return at > 0 && EMAIL_LOCAL.test(s.slice(0, at)) && EMAIL_DOMAIN.test(s.slice(at + 1));
}

const FORMATS = {
  "date-time": isDateTime,
  date: isDate,
  time: isTime,
  email: isEmail,
  uri: (s: string) => URI.test(s),
  uuid: (s: string) => UUID.test(s),
  ipv4: (s: string) => IPV4.test(s),
  ipv6: (s: string) => !s.includes("%") && isIPv6(s),
} as const satisfies Record<string, (s: string) => boolean>;

export const formatKeywords: Family = (scope, c) => {
  const name = scope.schema.format;
  if (name === undefined) return null;
  if (typeof name !== "string") fail(scope, "format", "must be a string");
  if (!c.assertFormats || !Object.hasOwn(FORMATS, name)) return null;
  const test = FORMATS[name as keyof typeof FORMATS];
  const message = `must be a valid ${name}`;
  return (v, p, e) => typeof v !== "string" || test(v) || (e?.push({ path: p, message }), false);
};
