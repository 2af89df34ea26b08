import type { Database } from '../../db/connect.js';
import type { ClickEventDeps } from '../clicks/service.js';
import { plugin, type ModuleRegistration, type Wiring } from '../../wiring.js';
import { WebhookDelivery } from './delivery.js';
import { mailOwnersOfDisabledEndpoint } from './disabled-mail.js';
import { webhooksDocument } from './openapi.js';
import { clickOutboxCtes, workspacesWanting } from './outbox.js';
import { webhookRoutes } from './routes.js';

/** Wakes this instance's delivery worker once there is one; emitters given it before that poke nothing yet. */
export function webhookWake(): Wiring['webhooks'] {
  let worker: { wake(): void } | undefined;
  return {
    wake: () => worker?.wake(),
    deliverWith: (w) => {
      worker = w;
    },
  };
}

/** link.clicked webhooks, written by the click writer with its batches. */
export function clickEventDeps(database: Database, onEventsWritten: () => void): ClickEventDeps {
  return { subscribedWorkspaces: () => workspacesWanting(database.db, 'link.clicked'), outboxCtes: clickOutboxCtes, onEventsWritten };
}

export const webhooksModule: ModuleRegistration = {
  name: 'webhooks',
  setUp: (w) => {
    let delivery: WebhookDelivery | undefined;
    return {
      plugins: [
        plugin(webhookRoutes, {
          ...w.resource,
          sealer: w.sealer,
          destinations: { allowedCidrs: w.config.webhookAllowedCidrs, allowPrivate: w.config.allowPrivateDestinations },
        }),
      ],
      server: { openApiWebhooks: webhooksDocument },
      workers: [
        {
          closeStage: 4,
          start: () => {
            if (!w.config.webhookDelivery) return;
            delivery = startWebhookDelivery(w);
            w.webhooks.deliverWith(delivery);
          },
          // The events the click writer's last flush writes stay queued for any instance (this one no longer claims).
          close: async () => delivery?.close(),
        },
      ],
    };
  },
};

/** The webhook delivery worker of this instance; an endpoint it disables is logged, and its owners mailed when mail is configured (§11, §15). */
function startWebhookDelivery({ config, database, sealer, logger, clock, mail }: Wiring): WebhookDelivery {
  const mailer = mail?.mailer;
  const worker = new WebhookDelivery({
    database,
    sealer,
    log: logger,
    clock,
    concurrency: config.webhookConcurrency,
    retryDelaysMs: config.webhookRetryDelaysMs,
    destinations: { allowPrivate: config.allowPrivateDestinations, allowedCidrs: config.webhookAllowedCidrs },
    onEndpointDisabled: {
      record: mailer && ((tx, endpoint) => mailOwnersOfDisabledEndpoint(tx, { mailer, baseUrl: config.baseUrl, now: clock() }, endpoint)),
      committed: (endpoint) => {
        logger.warn({ endpointId: endpoint.id, workspaceId: endpoint.workspaceId, reason: endpoint.reason }, 'webhook endpoint disabled');
        mailer?.wake();
      },
    },
  });
  worker.start();
  return worker;
}
