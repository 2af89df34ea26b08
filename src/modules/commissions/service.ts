import type { Ctx } from '../../core/context.js';
import type { ProgramRow } from '../program/service.js';
import { earnForConversion as earn, type StoredConversion } from './earn.js';
import type { CommissionRow } from './store.js';

export type { StoredConversion } from './earn.js';
export type { CommissionRow } from './store.js';

/** The commission a lead or sale just stored earns, written in its transaction (`ctx.db`); undefined: none. */
export function earnForConversion({ ctx, input }: { ctx: Ctx; input: { program: ProgramRow; conversion: StoredConversion } }): Promise<CommissionRow | undefined> {
  return earn(ctx, input.program, input.conversion);
}
