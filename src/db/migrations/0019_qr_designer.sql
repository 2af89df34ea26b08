-- QR designer (operations.md §14): the logos a workspace puts in its QR codes, and each link's
-- QR design.

-- A logo, always a PNG: an uploaded SVG is drawn into a PNG at upload and never kept (an SVG
-- served from our origin could run script). The id is random (UUID v4, not the time-ordered v7
-- of other tables): the public GET /api/qr names it, so it must not be guessable.
CREATE TABLE qr_logos (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id),
  -- Base64 text rather than bytea: it goes into the QR image as a data: URL as it is, and text
  -- moves much faster than bytea through PGlite (see 0017).
  png_base64 text NOT NULL,
  width integer NOT NULL,
  height integer NOT NULL,
  -- What was uploaded: 'png' (re-encoded) or 'svg' (drawn).
  source text NOT NULL CHECK (source IN ('png', 'svg')),
  created_at timestamptz NOT NULL DEFAULT now(),
  seq bigint GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX qr_logos_list_idx ON qr_logos (workspace_id, created_at, seq);

-- A link's design: colours, size, margin, error correction (null: the defaults). Its logo is a
-- column of its own so that deleting the logo takes it out of every design at once.
ALTER TABLE links ADD COLUMN qr_design jsonb;
ALTER TABLE links ADD COLUMN qr_logo_id uuid REFERENCES qr_logos(id) ON DELETE SET NULL;
-- Deleting a logo finds its links through this index, not by reading every link.
CREATE INDEX links_qr_logo_idx ON links (qr_logo_id) WHERE qr_logo_id IS NOT NULL;
