import { randomInt } from 'node:crypto';

/**
 * The rollup tables split a hot row into ROLLUP_SLOTS rows (migrations 0010, 0020): writers add
 * to one slot, readers sum them. A lead or sale holds its slot's rows until its transaction
 * commits, so two events of one link on one slot wait for each other. Drawn at random, the
 * concurrent events of one instance met on a slot often (sixteen in flight on eight slots); lent
 * here, each event takes the slot fewest of this instance's events hold, and all its rollup rows
 * (counts, money, link days) are on that one slot. Other instances start elsewhere at random.
 */
export const ROLLUP_SLOTS = 8;

const held = new Uint32Array(ROLLUP_SLOTS);
let next = randomInt(ROLLUP_SLOTS);

/** A slot for one event's rollups: give it back with releaseRollupSlot when its transaction has ended. */
export function takeRollupSlot(): number {
  let best = next;
  for (let i = 1; i < ROLLUP_SLOTS; i++) {
    const s = (next + i) % ROLLUP_SLOTS;
    if (held[s]! < held[best]!) best = s;
  }
  next = (best + 1) % ROLLUP_SLOTS;
  held[best]!++;
  return best;
}

export function releaseRollupSlot(slot: number): void {
  if (held[slot]! > 0) held[slot]!--;
}

/** Runs `write` on a lent slot, given back however it ends. */
export async function onRollupSlot<T>(write: (slot: number) => Promise<T>): Promise<T> {
  const slot = takeRollupSlot();
  try {
    return await write(slot);
  } finally {
    releaseRollupSlot(slot);
  }
}
