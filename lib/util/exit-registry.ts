// What must not outlive this process (a child's process group, a batch job) is registered
// here, and ended by one `exit` listener however the process ends, a crash included. One
// listener for all of them: a listener each would pile up past Node's warning. An `exit`
// listener can only do synchronous work, so each hook is a signal sent or a command run
// to its end (lib/util/run-command.ts `runCommandSync`).

const HOOKS = new Set<() => void>();
let listening = false;

function runAll(): void {
  for (const hook of HOOKS) {
    try {
      hook();
    } catch {
      // One failing hook must not keep the others from running.
    }
  }
  HOOKS.clear();
}

/** Runs `hook` when this process exits; the returned function unregisters it (safe twice). */
export function onParentExit(hook: () => void): () => void {
  if (!listening) {
    listening = true;
    process.once("exit", runAll);
  }
  HOOKS.add(hook);
  return () => void HOOKS.delete(hook);
}

/** How many hooks are registered (for specs: a child that ended leaves none behind). */
export function exitHookCount(): number {
  return HOOKS.size;
}
