/**
 * Cancellation of a workflow run reaching the CLI.
 *
 * What the runner does (GitHub's "Workflow cancellation reference", and
 * actions/runner src/Runner.Sdk/ProcessInvoker.cs): it sends SIGINT to the
 * step's entry process (this Node process) only, waits up to 7,500 ms, then
 * sends SIGTERM and waits up to 2,500 ms, then kills that one process. A
 * child the entry process leaves running is not signalled by the runner and
 * would outlive the step on Linux, so the Action must both tell the CLI and
 * make sure it is gone before the runner gives up on the Action.
 *
 * Decisions:
 * - The first SIGINT or SIGTERM the Action receives is forwarded, as that
 *   same signal, to the CLI, which cancels its run, writes its report and
 *   exits 130 (SPEC §7.1; the CLI's root.Main).
 * - Later signals are not forwarded: the CLI treats a second signal as
 *   "exit now", which would lose the report. They only shorten the grace
 *   period to at most {@link LATE_SIGNAL_GRACE_MS}.
 * - A CLI still running {@link DEFAULT_KILL_GRACE_MS} after the first signal
 *   is stopped with SIGKILL. 5,000 ms is below the runner's 7,500 ms, so the
 *   Action still has 2.5 s to read the report and set outputs before the
 *   runner escalates to SIGTERM.
 * - A signal that arrives before the CLI starts means the CLI is never
 *   started.
 */

/** The signals the runner sends on cancellation (SIGINT, then SIGTERM). */
export const CANCEL_SIGNALS = ['SIGINT', 'SIGTERM'] as const;
export type CancelSignal = (typeof CANCEL_SIGNALS)[number];

/** Milliseconds the CLI gets after the first signal before SIGKILL (runner: 7,500 ms before SIGTERM). */
export const DEFAULT_KILL_GRACE_MS = 5000;

/** Upper bound of the remaining grace once a second signal arrives (runner: 2,500 ms after SIGTERM). */
export const LATE_SIGNAL_GRACE_MS = 1000;

/**
 * Test-only override of the grace period, in milliseconds. It can only
 * shorten it: an integer from 1 to {@link DEFAULT_KILL_GRACE_MS}; anything
 * else leaves the default.
 */
export const KILL_GRACE_ENV = 'SOPS_AWS_SYNC_ACTION_TEST_KILL_GRACE_MS';

/** The grace period for env (see {@link KILL_GRACE_ENV}), in milliseconds. */
export function killGraceMs(env: NodeJS.ProcessEnv): number {
  const raw = env[KILL_GRACE_ENV];
  if (raw === undefined || !/^[0-9]{1,7}$/.test(raw)) return DEFAULT_KILL_GRACE_MS;
  const ms = Number(raw);
  return ms >= 1 && ms <= DEFAULT_KILL_GRACE_MS ? ms : DEFAULT_KILL_GRACE_MS;
}

/** Where signals come from: `process` in the Action, an EventEmitter in tests. */
export interface SignalSource {
  on(event: CancelSignal, listener: () => void): unknown;
  off(event: CancelSignal, listener: () => void): unknown;
}

/**
 * Records the cancellation signals the process receives from the moment it
 * is created until {@link Cancellation.close}. While it listens, SIGINT and
 * SIGTERM no longer end the Node process: the Action decides when to stop.
 */
export class Cancellation {
  private first: CancelSignal | undefined;
  private readonly listeners = new Set<(signal: CancelSignal) => void>();
  private readonly handlers = new Map<CancelSignal, () => void>();

  constructor(private readonly source: SignalSource) {
    for (const sig of CANCEL_SIGNALS) {
      const handler = (): void => {
        this.first ??= sig;
        for (const l of [...this.listeners]) l(sig);
      };
      this.handlers.set(sig, handler);
      source.on(sig, handler);
    }
  }

  /** The first signal received, or undefined while none has arrived. */
  get signal(): CancelSignal | undefined {
    return this.first;
  }

  /** Calls listener for every later signal; returns the function that unsubscribes it. */
  subscribe(listener: (signal: CancelSignal) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** A promise that resolves (never rejects) with the first signal. */
  whenSignalled(): Promise<CancelSignal> {
    const first = this.first;
    if (first !== undefined) return Promise.resolve(first);
    return new Promise((resolve) => {
      const off = this.subscribe((sig) => {
        off();
        resolve(sig);
      });
    });
  }

  /** Stops listening: the default signal behaviour applies again. */
  close(): void {
    for (const [sig, handler] of this.handlers) this.source.off(sig, handler);
    this.handlers.clear();
    this.listeners.clear();
  }
}

/**
 * Settles like work unless a signal arrives first; then it rejects with
 * onSignal(signal). A rejection of the abandoned work is absorbed, so it
 * never becomes an unhandled rejection.
 */
export function untilCancelled<T>(
  work: Promise<T>,
  cancellation: Cancellation,
  onSignal: (signal: CancelSignal) => Error,
): Promise<T> {
  if (cancellation.signal !== undefined) {
    work.catch(() => undefined);
    return Promise.reject(onSignal(cancellation.signal));
  }
  return new Promise<T>((resolve, reject) => {
    let done = false;
    const off = cancellation.subscribe((sig) => {
      if (done) return;
      done = true;
      off();
      reject(onSignal(sig));
    });
    work.then(
      (v) => {
        if (done) return;
        done = true;
        off();
        resolve(v);
      },
      (e: unknown) => {
        if (done) return;
        done = true;
        off();
        reject(e instanceof Error ? e : new Error('non-error rejection'));
      },
    );
  });
}

/** The part of a ChildProcess the supervisor needs. */
export interface Killable {
  kill(signal: NodeJS.Signals): boolean;
}

/** What happened to a supervised child because of cancellation. */
export interface SupervisionOutcome {
  /** The signal forwarded to the child, undefined when none arrived while it ran. */
  forwarded: CancelSignal | undefined;
  /** True when the grace period ran out and the child was sent SIGKILL. */
  killed: boolean;
}

export interface Supervision {
  /** Call when the child has exited: stops the timer and the subscription. */
  release(): SupervisionOutcome;
}

/**
 * Forwards the first cancellation signal to child and sends SIGKILL when it
 * has not exited graceMs after it; a later signal shortens the remaining
 * time to at most lateGraceMs. Call `release` once the child has exited.
 * The caller must not start a child when cancellation.signal is already set
 * (the CLI is then never run); supervise does not check it.
 */
export function supervise(
  child: Killable,
  cancellation: Cancellation,
  opts: { graceMs: number; lateGraceMs?: number; log?: (line: string) => void; now?: () => number },
): Supervision {
  const now = opts.now ?? Date.now;
  const lateGraceMs = opts.lateGraceMs ?? LATE_SIGNAL_GRACE_MS;
  const log = opts.log ?? ((): void => undefined);
  let forwarded: CancelSignal | undefined;
  let killed = false;
  let released = false;
  let timer: NodeJS.Timeout | undefined;
  let deadline = Infinity;

  const killAfter = (ms: number): void => {
    if (now() + ms >= deadline) return;
    deadline = now() + ms;
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      if (released) return;
      killed = true;
      log(`sops-aws-sync did not exit within the grace period after ${forwarded ?? 'the signal'}; stopping it with SIGKILL.`);
      child.kill('SIGKILL');
    }, ms);
  };

  const unsubscribe = cancellation.subscribe((sig) => {
    if (released || killed) return;
    if (forwarded === undefined) {
      forwarded = sig;
      log(`Received ${sig}: forwarded it to sops-aws-sync (SIGKILL if it has not exited within ${opts.graceMs} ms).`);
      child.kill(sig);
      killAfter(opts.graceMs);
      return;
    }
    log(`Received ${sig} again: not forwarded (the CLI would exit without its report); grace period shortened.`);
    killAfter(lateGraceMs);
  });

  return {
    release(): SupervisionOutcome {
      if (!released) {
        released = true;
        unsubscribe();
        if (timer !== undefined) clearTimeout(timer);
        timer = undefined;
      }
      return { forwarded, killed };
    },
  };
}
