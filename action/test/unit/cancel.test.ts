import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  Cancellation,
  CANCEL_SIGNALS,
  DEFAULT_KILL_GRACE_MS,
  KILL_GRACE_ENV,
  killGraceMs,
  LATE_SIGNAL_GRACE_MS,
  supervise,
  untilCancelled,
  type CancelSignal,
} from '../../src/cancel.js';

/** A child that records the signals it is sent. */
function fakeChild() {
  const sent: NodeJS.Signals[] = [];
  return {
    sent,
    kill(signal: NodeJS.Signals): boolean {
      sent.push(signal);
      return true;
    },
  };
}

function source() {
  const emitter = new EventEmitter();
  return { emitter, send: (sig: CancelSignal) => emitter.emit(sig) };
}

describe('Cancellation', () => {
  it('records the first signal, tells every subscriber about each one, and stops listening on close', async () => {
    const { emitter, send } = source();
    const c = new Cancellation(emitter);
    for (const sig of CANCEL_SIGNALS) expect(emitter.listenerCount(sig)).toBe(1);
    const seen: CancelSignal[] = [];
    const off = c.subscribe((s) => seen.push(s));
    const first = c.whenSignalled();
    expect(c.signal).toBeUndefined();
    send('SIGTERM');
    send('SIGINT');
    expect(c.signal).toBe('SIGTERM');
    expect(seen).toEqual(['SIGTERM', 'SIGINT']);
    await expect(first).resolves.toBe('SIGTERM');
    await expect(c.whenSignalled()).resolves.toBe('SIGTERM');
    off();
    send('SIGINT');
    expect(seen).toHaveLength(2);
    c.close();
    for (const sig of CANCEL_SIGNALS) expect(emitter.listenerCount(sig)).toBe(0);
  });
});

describe('untilCancelled', () => {
  const onSignal = (sig: CancelSignal) => new Error(`stopped by ${sig}`);

  it('settles like the work when no signal arrives', async () => {
    const c = new Cancellation(new EventEmitter());
    await expect(untilCancelled(Promise.resolve(7), c, onSignal)).resolves.toBe(7);
    await expect(untilCancelled(Promise.reject(new Error('boom')), c, onSignal)).rejects.toThrow('boom');
  });

  it('rejects at the signal and absorbs a later rejection of the abandoned work', async () => {
    const { emitter, send } = source();
    const c = new Cancellation(emitter);
    let fail: (e: Error) => void = () => undefined;
    const work = new Promise<number>((_ok, no) => {
      fail = no;
    });
    const raced = untilCancelled(work, c, onSignal);
    send('SIGINT');
    await expect(raced).rejects.toThrow('stopped by SIGINT');
    // Would surface as an unhandled rejection (vitest fails the run) if not absorbed.
    fail(new Error('download aborted'));
    await new Promise((r) => setImmediate(r));
  });

  it('rejects at once when the signal came before, and absorbs the work', async () => {
    const { emitter, send } = source();
    const c = new Cancellation(emitter);
    send('SIGTERM');
    await expect(untilCancelled(Promise.reject(new Error('late')), c, onSignal)).rejects.toThrow('stopped by SIGTERM');
    await new Promise((r) => setImmediate(r));
  });
});

describe('supervise', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('forwards the first signal once, as that signal, and sends SIGKILL when the grace period ends', () => {
    const { emitter, send } = source();
    const c = new Cancellation(emitter);
    const child = fakeChild();
    const log: string[] = [];
    const s = supervise(child, c, { graceMs: 5000, log: (l) => log.push(l) });
    vi.advanceTimersByTime(60_000);
    expect(child.sent).toEqual([]);
    send('SIGINT');
    expect(child.sent).toEqual(['SIGINT']);
    vi.advanceTimersByTime(4999);
    expect(child.sent).toEqual(['SIGINT']);
    vi.advanceTimersByTime(1);
    expect(child.sent).toEqual(['SIGINT', 'SIGKILL']);
    expect(s.release()).toEqual({ forwarded: 'SIGINT', killed: true });
    expect(log.join('\n')).toContain('SIGKILL');
  });

  it('forwards SIGTERM as SIGTERM when it comes first', () => {
    const { emitter, send } = source();
    const child = fakeChild();
    const s = supervise(child, new Cancellation(emitter), { graceMs: 5000 });
    send('SIGTERM');
    expect(child.sent).toEqual(['SIGTERM']);
    expect(s.release()).toEqual({ forwarded: 'SIGTERM', killed: false });
  });

  it('does not forward a second signal (the CLI would exit without its report) but shortens the grace', () => {
    const { emitter, send } = source();
    const child = fakeChild();
    const s = supervise(child, new Cancellation(emitter), { graceMs: 5000 });
    send('SIGINT');
    vi.advanceTimersByTime(1000);
    send('SIGTERM');
    send('SIGINT');
    expect(child.sent).toEqual(['SIGINT']);
    vi.advanceTimersByTime(LATE_SIGNAL_GRACE_MS - 1);
    expect(child.sent).toEqual(['SIGINT']);
    vi.advanceTimersByTime(1);
    expect(child.sent).toEqual(['SIGINT', 'SIGKILL']);
    vi.advanceTimersByTime(60_000);
    expect(child.sent).toEqual(['SIGINT', 'SIGKILL']);
    expect(s.release().killed).toBe(true);
  });

  it('never lengthens a deadline that is already shorter than the late grace', () => {
    const { emitter, send } = source();
    const child = fakeChild();
    supervise(child, new Cancellation(emitter), { graceMs: 300 });
    send('SIGINT');
    vi.advanceTimersByTime(200);
    send('SIGTERM');
    vi.advanceTimersByTime(100);
    expect(child.sent).toEqual(['SIGINT', 'SIGKILL']);
  });

  it('does nothing once released: no forwarding, no kill of an exited (possibly reused) pid', () => {
    const { emitter, send } = source();
    const child = fakeChild();
    const s = supervise(child, new Cancellation(emitter), { graceMs: 5000 });
    send('SIGINT');
    expect(s.release()).toEqual({ forwarded: 'SIGINT', killed: false });
    vi.advanceTimersByTime(60_000);
    send('SIGTERM');
    expect(child.sent).toEqual(['SIGINT']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('leaves a child alone when no signal arrives', () => {
    const child = fakeChild();
    const s = supervise(child, new Cancellation(new EventEmitter()), { graceMs: 5000 });
    vi.advanceTimersByTime(600_000);
    expect(child.sent).toEqual([]);
    expect(s.release()).toEqual({ forwarded: undefined, killed: false });
  });
});

describe('killGraceMs', () => {
  it('is below the runner 7.5 s SIGINT window by default', () => {
    expect(killGraceMs({})).toBe(DEFAULT_KILL_GRACE_MS);
    expect(DEFAULT_KILL_GRACE_MS).toBeLessThan(7500);
    expect(LATE_SIGNAL_GRACE_MS).toBeLessThan(2500);
  });

  it.each([
    ['200', 200],
    ['1', 1],
    [String(DEFAULT_KILL_GRACE_MS), DEFAULT_KILL_GRACE_MS],
    ['0', DEFAULT_KILL_GRACE_MS],
    ['60000', DEFAULT_KILL_GRACE_MS],
    ['-5', DEFAULT_KILL_GRACE_MS],
    ['1e3', DEFAULT_KILL_GRACE_MS],
    ['', DEFAULT_KILL_GRACE_MS],
  ])('the test override %j can only shorten it (%i ms)', (raw, want) => {
    expect(killGraceMs({ [KILL_GRACE_ENV]: raw })).toBe(want);
  });
});
