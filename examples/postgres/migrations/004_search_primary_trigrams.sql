-- The values of ids and names alone, for a one-term search: an entry whose id or name holds the term scores 60 or
-- more, any other at most 50, so when 100 entries match through their ids or names, they are the results, and the
-- other fields (most of the values) need not be read.
CREATE INDEX search_values_primary_trigrams ON search_values USING gin (value gin_trgm_ops) WHERE is_primary;
