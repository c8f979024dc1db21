// A thing built from a list of steps in dependency order, each naming the part it adds and
// its builder, which sees the parts before it (typed: a step cannot read a later part). What
// a step opens its own `close` undoes, and the whole closes in reverse order of assembly, so
// a part is closed only once everything built on it is. A step that fails closes what was
// built before it. Steps are awaited one by one: a step whose builder returns no promise runs
// with nothing else in between (no request reaches a server between two such steps).

type Part<K extends string, V> = { readonly [Q in K]: V };
type Untyped = Record<string, unknown>;

interface Step {
  readonly name: string;
  readonly build: (parts: Untyped) => unknown;
  readonly close: ((value: unknown, parts: Untyped) => unknown) | undefined;
}

/** What `assemble` gives: the parts, and their close (safe twice: every call gets the same promise). */
export interface Assembled<P> {
  readonly parts: P;
  close(): Promise<void>;
}

/** The parts an assembly builds. */
export type PartsOf<A> = A extends Assembly<object, infer P> ? P : never;

export class Assembly<Start extends object, P extends object = Start> {
  readonly #steps: readonly Step[];

  constructor(steps: readonly Step[] = []) {
    this.#steps = steps;
  }

  /** The assembly with one more part, `name`, built from the parts before it. */
  add<K extends string, V>(
    name: K,
    build: (parts: P) => V | Promise<V>,
    close?: (value: V, parts: P & Part<K, V>) => unknown,
  ): Assembly<Start, P & Part<K, V>> {
    const step = { name, build, close } as Step;
    return new Assembly<Start, P & Part<K, V>>([...this.#steps, step]);
  }

  async assemble(start: Start): Promise<Assembled<P>> {
    const parts: Untyped = Object.assign<Untyped, Start>({}, start);
    const built: Step[] = [];
    let closing: Promise<void> | undefined;
    const close = (): Promise<void> => (closing ??= closeAll(built, parts));
    for (const step of this.#steps) {
      try {
        const value = step.build(parts);
        parts[step.name] = value instanceof Promise ? await value : value;
      } catch (err) {
        await close();
        throw err;
      }
      built.push(step);
    }
    return { parts: parts as P, close };
  }
}

async function closeAll(built: readonly Step[], parts: Untyped): Promise<void> {
  for (const step of [...built].reverse()) if (step.close) await step.close(parts[step.name], parts);
}
