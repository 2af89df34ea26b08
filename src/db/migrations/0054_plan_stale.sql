-- A write decided from an earlier read checks, in its own statement, that what it read still
-- holds; when not, it raises this (SQLSTATE LT409) so that the whole statement writes nothing and
-- the caller decides again from fresh facts (conversions: a lead's commission planned before it).
CREATE FUNCTION linktrail_plan_stale() RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RAISE EXCEPTION 'what this write was decided from no longer holds' USING ERRCODE = 'LT409';
END
$$;
