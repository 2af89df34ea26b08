/**
 * The queue workers' loop: steps run back to back while they take items; an empty or failed
 * step sleeps for the delay unless wake() cuts it short; stop() waits for the step in hand and
 * runs no other.
 */
import { describe, expect, it } from 'vitest';
import { PollLoop } from '../../src/core/poll-loop.js';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('PollLoop', () => {
  it('runs steps back to back while they take items, then sleeps its delay', async () => {
    let items = 3;
    const steps: number[] = [];
    const loop = new PollLoop({ step: async () => (steps.push(items), items-- > 0), delayMs: () => 60_000, onError: () => {} });
    loop.start();
    await tick(20);
    // Three items taken, one empty look, then asleep for a minute.
    expect(steps).toEqual([3, 2, 1, 0]);
    await loop.stop();
  });

  it('wake() ends the sleep at once', async () => {
    let looks = 0;
    const loop = new PollLoop({ step: async () => (looks++, false), delayMs: () => 60_000, onError: () => {} });
    loop.start();
    await tick(10);
    expect(looks).toBe(1);
    loop.wake();
    await tick(10);
    expect(looks).toBe(2);
    await loop.stop();
    expect(looks).toBe(2);
  });

  it('a step that throws is reported and the loop sleeps, then goes on', async () => {
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
    await tick(100);
    await loop.stop();
    // Slept between failures: a handful of looks in 100 ms, not thousands.
    expect(looks).toBeGreaterThanOrEqual(2);
    expect(looks).toBeLessThan(10);
    expect(errors.map((e) => (e as Error).message).slice(0, 2)).toEqual(['look 1', 'look 2']);
  });

  it('stop() waits for the step in hand, which sees stopping, and runs no other', async () => {
    let finish: () => void = () => {};
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
    await tick(5);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await tick(5);
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(sawStopping).toBe(true);
    expect(steps).toBe(1);
  });
});
