/**
 * Which program a signed-in person acts in as a partner (operations.md §18 "Partner portal"):
 * the one they partner in, or the one `X-Program-Id` names when they partner in several. A
 * program they are not a partner in is 404, as an unknown one: whether it exists is not theirs
 * to learn. The workspace is the program's, and the seat gives only this partner's id.
 */
import type { FastifyRequest } from 'fastify';
import type { BaseCtx, Ctx, ResourceDeps } from '../../core/context.js';
import { AppError, notFound } from '../../core/errors.js';
import type { Workspace } from '../../core/workspace.js';
import { isUuid } from '../../db/ids.js';
import { partnerSeatsOf } from '../partners/service.js';
import { requireWorkspace } from '../workspaces/service.js';
import type { Seat } from './service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on the partner portal's routes: the program the person acts in as a partner, and its workspace. */
    partnerSeat?: Seat & { workspace: Workspace };
  }
}

/** preHandler of every /api/partner route (after the session is checked). */
export function resolveSeat(deps: { db: ResourceDeps['db']; clock: () => Date }) {
  return async (req: FastifyRequest): Promise<void> => {
    const person = req.person!;
    const ctx: BaseCtx = { db: deps.db, now: deps.clock() };
    const seats = await partnerSeatsOf({ ctx, input: { userId: person.userId } });
    const named = req.headers['x-program-id'];
    if (Array.isArray(named)) throw notFound('program', named.join(','));
    let seat = seats.length === 1 && named === undefined ? seats[0] : undefined;
    if (named !== undefined) {
      const id = named.trim().toLowerCase();
      seat = isUuid(id) ? seats.find((s) => s.programId === id) : undefined;
      if (!seat) throw notFound('program', named.slice(0, 100));
    }
    if (!seat && seats.length > 1) throw new AppError('program_choice_required');
    if (!seat) throw notFound('program', '');
    const workspace = await requireWorkspace({ ctx, input: { id: seat.workspaceId } });
    req.partnerSeat = { partnerId: seat.partnerId, programId: seat.programId, userId: person.userId, sessionId: person.sessionId, workspace };
  };
}

/** The context of a portal request: the seat's workspace, the databases, the time (no audit intent: the writes record their own entries). */
export function seatContext(deps: ResourceDeps, req: FastifyRequest): Ctx {
  const seat = req.partnerSeat!;
  const analytics = deps.analyticsDb?.();
  return { db: deps.db, analyticsDb: analytics ?? deps.db, workspace: seat.workspace, now: deps.clock() };
}
