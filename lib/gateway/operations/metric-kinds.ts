// Labelled counters and histograms in the Prometheus text format (0.0.4), for ./metrics.ts.
// Labels come from the gateway's own small sets (tool names from gateway.json, backend kinds,
// store operations), never from requests, so series stay few.

export function label(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function selector(labels: string, extra = ""): string {
  const all = [labels, extra].filter(Boolean).join(",");
  return all ? `{${all}}` : "";
}

export class Counter {
  readonly #counts = new Map<string, number>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelName?: string,
  ) {}

  inc(labelValue = "", by = 1): void {
    this.#counts.set(labelValue, (this.#counts.get(labelValue) ?? 0) + by);
  }

  render(lines: string[]): void {
    lines.push(`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`);
    if (!this.labelName) lines.push(`${this.name} ${this.#counts.get("") ?? 0}`);
    else for (const [v, n] of this.#counts) lines.push(`${this.name}{${this.labelName}="${label(v)}"} ${n}`);
  }
}

/** Counts in seconds; each observation lands in the first bucket it fits, summed when rendered. */
export class Histogram {
  readonly #series = new Map<string, { buckets: number[]; count: number; sum: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly bounds: readonly number[],
    readonly labelName?: string,
  ) {}

  observe(seconds: number, labelValue = ""): void {
    let s = this.#series.get(labelValue);
    if (!s) this.#series.set(labelValue, (s = { buckets: new Array<number>(this.bounds.length).fill(0), count: 0, sum: 0 }));
    s.count++;
    s.sum += seconds;
    const i = this.bounds.findIndex((le) => seconds <= le);
    if (i >= 0) s.buckets[i]!++;
  }

  render(lines: string[]): void {
    lines.push(`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`);
    // Unlabelled, an empty histogram still shows its zero series.
    if (!this.labelName && this.#series.size === 0) this.#series.set("", { buckets: new Array<number>(this.bounds.length).fill(0), count: 0, sum: 0 });
    for (const [v, s] of this.#series) {
      const own = this.labelName ? `${this.labelName}="${label(v)}"` : "";
      let below = 0;
      this.bounds.forEach((le, i) => {
        below += s.buckets[i]!;
        lines.push(`${this.name}_bucket${selector(own, `le="${le}"`)} ${below}`);
      });
      lines.push(`${this.name}_bucket${selector(own, 'le="+Inf"')} ${s.count}`);
      lines.push(`${this.name}_sum${selector(own)} ${s.sum}`, `${this.name}_count${selector(own)} ${s.count}`);
    }
  }
}
