-- The periodic maintenance (infra/maintenance.ts): the last period each job was claimed for, so
-- that one instance runs it per period however many run the service.
CREATE TABLE maintenance_runs (
  job text PRIMARY KEY,
  period_start timestamptz NOT NULL,
  claimed_at timestamptz NOT NULL DEFAULT now()
);
