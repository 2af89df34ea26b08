-- Imports (operations.md §13): a file of links brought from another service, read in the
-- background by any instance. The file stays here until the job ends, so an instance that
-- restarts (or another one) resumes it from the last committed batch.
CREATE TABLE imports (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  source text NOT NULL,
  status text NOT NULL CHECK (status IN ('running', 'done', 'failed')),
  -- What the job was asked: collection, mapping, upgradeHttp. Read again on every resume.
  options jsonb NOT NULL DEFAULT '{}'::jsonb,
  total integer NOT NULL,
  -- Rows processed, and the file line the next batch starts after: both move in the
  -- transaction that writes the batch, so a resumed job neither skips nor repeats a row.
  done integer NOT NULL DEFAULT 0,
  last_line integer NOT NULL DEFAULT 0,
  created integer NOT NULL DEFAULT 0,
  updated integer NOT NULL DEFAULT 0,
  unchanged integer NOT NULL DEFAULT 0,
  failed integer NOT NULL DEFAULT 0,
  -- Why the whole job failed (an AppError's code and parameters), when it did.
  error jsonb,
  -- The instance working on the job holds it until this time, renewed every batch; an
  -- instance that dies lets it lapse and another takes the job over.
  leased_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  seq bigint GENERATED ALWAYS AS IDENTITY
);
-- One running import per workspace: a second POST is 409 (two jobs would race on the same links).
CREATE UNIQUE INDEX imports_one_running ON imports (workspace_id) WHERE status = 'running';
-- The jobs an instance may take: few rows, whatever the history.
CREATE INDEX imports_running_idx ON imports (leased_until) WHERE status = 'running';
CREATE INDEX imports_list_idx ON imports (workspace_id, created_at, seq);

-- The uploaded file, in parts, until the job ends (the errors stay in import_errors). Parts
-- because PGlite runs each statement on the event loop: one 50 MB value would hold it for
-- seconds, a part of 256 KB for milliseconds. Text, not bytea: a file is taken only as UTF-8
-- without NUL bytes, and text moves ~25x faster than bytea through PGlite (5.8 MB: 67 ms
-- against 1.7 s). Written in the transaction that stores the job, so a job is never seen
-- with part of its file.
CREATE TABLE import_file_parts (
  import_id uuid NOT NULL REFERENCES imports(id) ON DELETE CASCADE,
  part integer NOT NULL,
  text text NOT NULL,
  PRIMARY KEY (import_id, part)
);

-- A rejected row: its line, the field and reason, and the row's own cells (so the errors CSV
-- gives the row back to fix and import again).
CREATE TABLE import_errors (
  import_id uuid NOT NULL REFERENCES imports(id) ON DELETE CASCADE,
  line integer NOT NULL,
  field text NOT NULL,
  reason text NOT NULL,
  message text NOT NULL,
  cells jsonb,
  PRIMARY KEY (import_id, line)
);

-- An import matches a row with neither old short URL nor external id by destination and title
-- (operations.md §13). A hash index: equality is all it needs, and a URL may be longer than a
-- btree entry can hold.
CREATE INDEX links_url_hash_idx ON links USING hash (url);
