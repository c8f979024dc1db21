// Calls per day as an inline SVG bar chart, built on the server: the page needs no script,
// and the CSP (default-src 'none') allows inline SVG markup.
import { escapeHtml } from "../oauth/pages.ts";

const W = 600;
const H = 140;
const PAD = 24;

export function callsChart(perDay: ReadonlyArray<{ day: string; calls: number; errors: number }>): string {
  const max = Math.max(1, ...perDay.map((d) => d.calls));
  const step = (W - PAD) / Math.max(1, perDay.length);
  const bar = Math.max(1, step - 2);
  const bars = perDay.map((d, i) => {
    const x = PAD + i * step;
    const h = ((H - PAD) * d.calls) / max;
    const e = ((H - PAD) * d.errors) / max;
    const title = `<title>${escapeHtml(d.day)}: ${d.calls} calls, ${d.errors} errors</title>`;
    return `<g>${title}<rect x="${x.toFixed(1)}" y="${(H - PAD - h).toFixed(1)}" width="${bar.toFixed(1)}" height="${h.toFixed(1)}" fill="#2563eb"/><rect x="${x.toFixed(1)}" y="${(H - PAD - e).toFixed(1)}" width="${bar.toFixed(1)}" height="${e.toFixed(1)}" fill="#dc2626"/></g>`;
  });
  const first = perDay[0]?.day ?? "";
  const last = perDay.at(-1)?.day ?? "";
  return `<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="Calls per day over the last ${perDay.length} days (errors in red); at most ${max} a day">
<line x1="${PAD}" y1="${H - PAD}" x2="${W}" y2="${H - PAD}" stroke="#9ca3af"/>
<text x="0" y="12" font-size="11" fill="#4b5563">${max}</text><text x="0" y="${H - PAD}" font-size="11" fill="#4b5563">0</text>
${bars.join("\n")}
<text x="${PAD}" y="${H - 6}" font-size="11" fill="#4b5563">${escapeHtml(first)}</text><text x="${W}" y="${H - 6}" font-size="11" fill="#4b5563" text-anchor="end">${escapeHtml(last)}</text>
</svg>`;
}
