-- Blacklisted names are stored under the key of the name normalization that wrote them
-- (schemas/model/screening/name_key.h: its revision and the ICU version). Rows written before this
-- column, or by a binary that does not know it, carry the key of the first normalization,
-- 'names/1'. A key of another version may differ from today's: screening computes such rows'
-- keys again from `value`, and `payrail migrate`, the blacklist commands and a starting screening
-- worker re-key them in place (infra/store/screening/blacklist.h, rekey_names).
ALTER TABLE screening_blacklist ADD COLUMN key_version text NOT NULL DEFAULT 'names/1';
