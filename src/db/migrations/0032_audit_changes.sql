-- What a settings change was (operations.md §15): a setting's value before and after, by name —
-- a member's role changed, added or removed; a workspace's plan changed by the operator.
-- `{ "role": { "before": "member", "after": "viewer" } }`; `{}` for entries that change no setting.
ALTER TABLE audit_entries ADD COLUMN changes jsonb NOT NULL DEFAULT '{}';
