-- An import's progress from the first byte read (issue 43): the file's size in bytes, and how far
-- the batches written so far have read it. Both move with the job's other counters.
ALTER TABLE imports ADD COLUMN bytes_total bigint NOT NULL DEFAULT 0;
ALTER TABLE imports ADD COLUMN bytes_read bigint NOT NULL DEFAULT 0;
