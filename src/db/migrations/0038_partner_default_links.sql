-- Partners' default links (operations.md §18 "Default link and partner links"): the partner-links
-- job looks each minute, per workspace with a program, for approved partners whose default link
-- is still to be made (those the program's first PUT approved). Only those partners are in this
-- index, so the look-up stays a probe however many partners have their link.
CREATE INDEX partners_awaiting_default_link ON partners (workspace_id) WHERE status = 'approved' AND default_link_id IS NULL AND deleted_at IS NULL;
-- Deleting links asks whether any is an approved partner's default link (400 default_link).
CREATE INDEX partners_default_link ON partners (default_link_id) WHERE default_link_id IS NOT NULL;
