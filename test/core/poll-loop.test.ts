/**
 * The queue workers' loop: steps run back to back while they take items; an empty or failed
 * step sleeps for the delay unless wake() cuts it short; stop() waits for the step in hand and
 * runs no other.
 */
import { describe, expect, it, vi } from 'vitest';
import { PollLoop } from '../../src/core/poll-loop.js';
import { within } from '../helpers/wait.js';

describe('PollLoop', () => {
  it('runs steps back to back while they take items, then sleeps its delay', async () => {
    let items = 3;
    const steps: number[] = [];
    const loop = new PollLoop({ step: async () => (steps.push(items), items-- > 0), delayMs: () => 60_000, onError: () => {} });
    loop.start();
    expect(await within(5000, async () => steps.length >= 4, 5)).toBe(true);
    // Three items taken, one empty look, then asleep for a minute.
    expect(steps).toEqual([3, 2, 1, 0]);
    await loop.stop();
  });

  it('wake() ends the sleep at once', async () => {
    let looks = 0;
    const loop = new PollLoop({ step: async () => (looks++, false), delayMs: () => 60_000, onError: () => {} });
    loop.start();
    expect(await within(5000, async () => looks >= 1, 5)).toBe(true);
    expect(looks).toBe(1);
    loop.wake();
    // Not the minute's delay: the wake.
    expect(await within(5000, async () => looks >= 2, 5)).toBe(true);
    expect(looks).toBe(2);
    await loop.stop();
    expect(looks).toBe(2);
  });

  it('a step that throws is reported and the loop sleeps its delay, then goes on', async () => {
    vi.useFakeTimers();
    try {
      const errors: unknown[] = [];
      let looks = 0;
      const loop = new PollLoop({
        step: async () => {
          looks++;
          throw new Error(`look ${looks}`);
        },
        delayMs: () => 15,
        onError: (err) => errors.push(err),
      });
      loop.start();
      await vi.advanceTimersByTimeAsync(0);
      expect(looks).toBe(1);
      // Asleep after the failure: no other look until its 15 ms have passed.
      await vi.advanceTimersByTimeAsync(14);
      expect(looks).toBe(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(looks).toBe(2);
      await vi.advanceTimersByTimeAsync(15);
      expect(looks).toBe(3);
      const stopped = loop.stop();
      await vi.advanceTimersByTimeAsync(0);
      await stopped;
      expect(errors.map((e) => (e as Error).message)).toEqual(['look 1', 'look 2', 'look 3']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('stop() waits for the step in hand, which sees stopping, and runs no other', async () => {
    let finish: (() => void) | undefined;
    let sawStopping: boolean | undefined;
    let steps = 0;
    const loop = new PollLoop({
      step: async () => {
        steps++;
        await new Promise<void>((r) => (finish = r));
        sawStopping = loop.stopping;
        return true;
      },
      delayMs: () => 0,
      onError: () => {},
    });
    loop.start();
    expect(await within(5000, async () => finish !== undefined, 5)).toBe(true);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    // The step is held: stop() cannot have resolved, however long one waits.
    await Promise.resolve();
    expect(stopped).toBe(false);
    finish!();
    await stopping;
    expect(sawStopping).toBe(true);
    expect(steps).toBe(1);
  });
});
